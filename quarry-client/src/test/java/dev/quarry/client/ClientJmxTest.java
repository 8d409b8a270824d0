package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.Server;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The client's MXBeans on the platform MBean server: registered only when asked, live, and gone after close. */
@ExtendWith(LeakTrackingPoolExtension.class)
class ClientJmxTest {
    private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
    private final CountDownLatch release = new CountDownLatch(1);
    private Server server;
    private HttpClient client;

    @BeforeEach
    void startServer() throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .route("GET /hello", (req, res) -> res.send("Hello"))
                .route("GET /wait", (req, res) -> {
                    release.await(10, TimeUnit.SECONDS);
                    res.send("waited");
                })
                .build()
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        if (client != null) {
            client.close();
        }
        server.stop();
    }

    private String uri(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    private Set<ObjectName> beans(String client) throws Exception {
        return mbeans.queryNames(new ObjectName("dev.quarry:client=" + client + ",*"), null);
    }

    private ObjectName only(String pattern) throws Exception {
        Set<ObjectName> names = mbeans.queryNames(new ObjectName(pattern), null);
        assertEquals(1, names.size(), pattern + ": " + names);
        return names.iterator().next();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    private int intAttribute(ObjectName name, String attribute) {
        try {
            return (Integer) mbeans.getAttribute(name, attribute);
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    @Test
    void destinationStatisticsAreOnJmxWhileTheClientLives(ByteBufferPool pool) throws Exception {
        client = HttpClient.builder()
                .name("jmx-on")
                .jmx(true)
                .connectionPool(ConnectionPoolKind.ROUND_ROBIN)
                .maxConnectionsPerDestination(4)
                .bufferPool(pool)
                .build();
        ObjectName clientBean = only("dev.quarry:type=HttpClient,client=jmx-on,*");
        assertEquals("ROUND_ROBIN", mbeans.getAttribute(clientBean, "ConnectionPool"));
        assertEquals(4, mbeans.getAttribute(clientBean, "MaxConnectionsPerDestination"));

        assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
        ObjectName destination = only("dev.quarry:type=Destination,client=jmx-on,*");
        assertEquals("http://127.0.0.1:" + server.port(), mbeans.getAttribute(destination, "Origin"));
        assertEquals(1L, mbeans.getAttribute(destination, "Exchanges"));
        assertEquals(1, intAttribute(destination, "Connections"));
        assertEquals(1, intAttribute(destination, "Idle"));
        assertEquals(0, intAttribute(destination, "Active"));
        assertEquals(0, intAttribute(destination, "Pending"));
        assertEquals(0, intAttribute(destination, "Queued"));
        assertEquals(List.of("http://127.0.0.1:" + server.port()), List.of((String[])
                mbeans.getAttribute(clientBean, "Destinations")));

        CompletableFuture<HttpResponse> waiting = client.sendAsync(HttpRequest.get(uri("/wait")));
        await(() -> intAttribute(destination, "Active") == 1, "the waiting request to hold a connection");
        assertEquals(1, intAttribute(clientBean, "Active"));
        assertTrue(client.toString().contains("active=1"), client.toString());
        release.countDown();
        assertEquals("waited", waiting.get(10, TimeUnit.SECONDS).asString());
        await(() -> intAttribute(destination, "Active") == 0, "the connection to be released");

        client.close();
        assertEquals(Set.of(), beans("jmx-on"), "unregistered on close");
    }

    @Test
    void nothingIsRegisteredUnlessAsked(ByteBufferPool pool) throws Exception {
        client = HttpClient.builder().name("jmx-off").bufferPool(pool).build();
        assertEquals("Hello", client.send(HttpRequest.get(uri("/hello"))).asString());
        assertEquals(Set.of(), beans("jmx-off"));
    }

    @Test
    void clientsOfTheSameNameDoNotCollide(ByteBufferPool pool) throws Exception {
        client = HttpClient.builder()
                .name("jmx-twice")
                .jmx(true)
                .bufferPool(pool)
                .build();
        try (HttpClient other = HttpClient.builder()
                .name("jmx-twice")
                .jmx(true)
                .bufferPool(pool)
                .build()) {
            assertEquals(2, beans("jmx-twice").size(), beans("jmx-twice").toString());
        }
        assertEquals(1, beans("jmx-twice").size());
    }
}
