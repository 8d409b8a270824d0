package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.throttle.TokenBucket;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Admission, limits and eviction, without sockets, on a simulated clock. */
class ThrottleTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong(1_000 * SECOND);
    private Throttle throttle;

    private Throttle throttle(ThrottleLimits limits) {
        throttle = Throttle.builder().limits(limits).clock(now::get).build();
        return throttle;
    }

    @AfterEach
    void stop() {
        if (throttle != null) {
            throttle.stop();
        }
    }

    private static SocketAddress client(String ip) {
        return new InetSocketAddress(ip, 40000);
    }

    @Test
    void denyWinsOverAllow() {
        throttle(ThrottleLimits.builder().allow("127.0.0.0/8").deny("127.0.0.2").build());
        assertSame(Throttle.Admission.DENIED, throttle.admit(client("127.0.0.2"), false));
        assertSame(Throttle.Admission.UNTHROTTLED, throttle.admit(client("127.0.0.3"), false));
        assertNotNull(throttle.admit(client("10.0.0.1"), false).request());
        ThrottleStatistics statistics = throttle.statistics();
        assertEquals(1, statistics.deniedRequests());
        assertEquals(1, statistics.unthrottledRequests());
        assertEquals(1, statistics.throttledRequests());
    }

    @Test
    void aResponseWithoutBodyIsNotThrottledButDenyStillApplies() {
        throttle(ThrottleLimits.builder()
                .requestRate(1000)
                .maxRequestsPerClient(1)
                .deny("127.0.0.2")
                .build());
        assertSame(Throttle.Admission.UNTHROTTLED, throttle.admit(client("127.0.0.3"), true));
        assertSame(Throttle.Admission.DENIED, throttle.admit(client("127.0.0.2"), true));
        assertNotNull(throttle.admit(client("127.0.0.3"), false).request(), "HEAD took no slot");
    }

    @Test
    void aClientBeyondItsCapIsRefusedUntilARequestEnds() {
        throttle(ThrottleLimits.builder().maxRequestsPerClient(2).build());
        RequestThrottle first = throttle.admit(client("10.0.0.1"), false).request();
        RequestThrottle second = throttle.admit(client("10.0.0.1"), false).request();
        assertNotNull(first);
        assertNotNull(second);
        assertSame(Throttle.Admission.TOO_MANY, throttle.admit(client("10.0.0.1"), false));
        assertNotNull(throttle.admit(client("10.0.0.2"), false).request(), "another client has its own cap");
        first.release();
        first.release(); // idempotent: frees one slot only
        assertNotNull(throttle.admit(client("10.0.0.1"), false).request());
        assertSame(Throttle.Admission.TOO_MANY, throttle.admit(client("10.0.0.1"), false));
        assertEquals(2, throttle.statistics().tooManyRequests());
    }

    @Test
    void requestsOfOneClientShareItsBucket() {
        throttle(ThrottleLimits.builder().clientRate(1000).clientBurst(1000).build());
        TokenBucket[] a = throttle.admit(client("10.0.0.1"), false).request().chain();
        TokenBucket[] b = throttle.admit(client("10.0.0.1"), false).request().chain();
        TokenBucket[] c = throttle.admit(client("10.0.0.2"), false).request().chain();
        assertEquals(3, a.length, "request, client, global");
        assertSame(a[1], b[1]);
        assertTrue(a[1] != c[1]);
        assertSame(a[2], c[2], "one global bucket");
        assertTrue(a[0] != b[0], "one bucket per request");
    }

    @Test
    void withoutClientLimitsNoClientIsTracked() {
        throttle(ThrottleLimits.builder().requestRate(1000).build());
        assertEquals(2, throttle.admit(client("10.0.0.1"), false).request().chain().length, "request, global");
        assertEquals(0, throttle.statistics().activeClients());
    }

    @Test
    void anIdleClientIsEvictedOnlyOnceItsBucketIsFullAgain() {
        throttle(ThrottleLimits.builder()
                .clientRate(1000)
                .clientBurst(1000)
                .clientIdleEviction(Duration.ofMillis(200))
                .build());
        RequestThrottle request = throttle.admit(client("10.0.0.1"), false).request();
        TokenBucket clientBucket = request.chain()[1];
        assertTrue(clientBucket.tryTake(1000));
        throttle.sweep();
        assertEquals(1, throttle.statistics().activeClients(), "in flight: kept");
        request.release();
        now.addAndGet(SECOND / 10);
        throttle.sweep();
        assertEquals(1, throttle.statistics().activeClients(), "not idle long enough");
        now.addAndGet(4 * SECOND / 10);
        throttle.sweep();
        assertEquals(1, throttle.statistics().activeClients(), "idle long enough, but its bucket is half empty");
        now.addAndGet(SECOND / 2);
        throttle.sweep();
        assertEquals(0, throttle.statistics().activeClients(), "full again: evicted");
        assertEquals(1, throttle.statistics().evictedClients());
        RequestThrottle again = throttle.admit(client("10.0.0.1"), false).request();
        assertTrue(again.chain()[1] != clientBucket, "a fresh entry");
        assertEquals(1000, again.chain()[1].available(), "with what the old one would have had");
    }

    @Test
    void theSweepOnTheTimerEvictsIdleClients() {
        throttle(ThrottleLimits.builder()
                .maxRequestsPerClient(5)
                .clientIdleEviction(Duration.ofMillis(40))
                .build());
        throttle.admit(client("10.0.0.1"), false).request().release();
        assertEquals(1, throttle.statistics().activeClients());
        now.addAndGet(SECOND);
        long deadline = System.nanoTime() + 10 * SECOND;
        // The sweep runs on the timer's executor: it removes the client, then counts it.
        while (throttle.statistics().activeClients() != 0
                || throttle.statistics().evictedClients() != 1) {
            assertTrue(System.nanoTime() - deadline < 0, "not evicted: " + throttle.dump());
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }

    @Test
    void changingTheLimitsReconfiguresTheGlobalBucketAtOnceAndRequestsAtTheirNextChunk() {
        throttle(ThrottleLimits.builder().globalRate(1000).requestRate(100).build());
        RequestThrottle request = throttle.admit(client("10.0.0.1"), false).request();
        assertEquals(100, request.chain()[0].rate());
        throttle.update(l -> l.toBuilder().globalRate(5000).requestRate(0).build());
        assertEquals(5000, throttle.globalBucket().rate());
        assertTrue(request.chain()[0].isUnlimited(), "applied when the request asks for its chain");
    }

    @Test
    void anInvalidUpdateChangesNothing() {
        throttle(ThrottleLimits.builder().requestRate(100).build());
        ThrottleMXBean bean = throttle.mxBean();
        assertThrows(IllegalArgumentException.class, () -> bean.setRequestRate(-1));
        assertThrows(IllegalArgumentException.class, () -> bean.setDenyList("not-an-address"));
        assertEquals(100, bean.getRequestRate());
        bean.setDenyList("10.0.0.0/8");
        assertEquals("10.0.0.0/8", bean.getDenyList());
        assertSame(Throttle.Admission.DENIED, throttle.admit(client("10.1.1.1"), false));
    }

    @Test
    void chunksFitTheSmallestBucketAndOneSecondOfItsRate() {
        throttle(
                ThrottleLimits.builder().requestRate(10_000).requestBurst(5_000).build());
        RequestThrottle request = throttle.admit(client("10.0.0.1"), false).request();
        request.chain();
        assertEquals(5_000, request.chunkSize(1_000_000), "the request bucket's capacity");
        assertEquals(700, request.chunkSize(700), "what is left");
        throttle.update(l -> l.toBuilder().requestRate(2_000).build());
        request.chain();
        assertEquals(2_000, request.chunkSize(1_000_000), "one second of the rate");
        throttle.update(l -> l.toBuilder().requestRate(0).build());
        request.chain();
        assertEquals(1_000_000, request.chunkSize(1_000_000), "nothing limited: not split");
    }

    @Test
    void dumpShowsLimitsBucketsAndClients() {
        throttle(ThrottleLimits.builder().clientRate(1000).build());
        throttle.admit(client("10.0.0.9"), false);
        String dump = throttle.dump();
        assertTrue(dump.contains("client=1 kB/s"), dump);
        assertTrue(dump.contains("global TokenBucket{unlimited}"), dump);
        assertTrue(dump.contains("Client{/10.0.0.9, inFlight=1"), dump);
        assertNull(Throttle.Admission.UNTHROTTLED.request());
    }
}
