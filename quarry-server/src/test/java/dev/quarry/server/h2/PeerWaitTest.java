package dev.quarry.server.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.FrameListener;
import dev.quarry.http.h2.FrameParser;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.server.AsyncHandler;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What the stream idle timeout and the control-frame backlog bound apply to: peers that wait, not slow handlers. */
class PeerWaitTest extends Http2ServerTestSupport {

    @Test
    void aSlowHandlerIsNotResetByTheStreamIdleTimeout() throws Exception {
        // Long polling: the handler answers after three stream idle timeouts; the client is waiting, not stalling us.
        start(builder -> builder.http2Config(
                        new Limits().streamIdleTimeout(Duration.ofMillis(300)).build())
                .route(
                        "GET /poll",
                        AsyncHandler.nonBlocking((req, res, cb) -> server.timer()
                                .schedule(
                                        () -> res.write(
                                                true, ByteBuffer.wrap("late".getBytes(StandardCharsets.US_ASCII)), cb),
                                        1200,
                                        TimeUnit.MILLISECONDS))));
        Http2TestClient client = connect();
        int stream = client.get("/poll");

        var response = client.awaitResponse(stream);

        assertEquals(200, response.status());
        assertEquals("late", response.bodyAsString());
        assertTrue(client.events().stream().noneMatch(e -> e instanceof FrameEvent.RstStream), "the stream was reset");
    }

    @Test
    void aClientFloodingPingsWithoutReadingIsCutOffInsteadOfGrowingTheBacklog() throws Exception {
        // The rate limit is lifted so that only the backlog bound can stop it.
        start(builder -> builder.http2Config(
                        new Limits().maxControlFramesPerSecond(10_000_000).build())
                .route("GET /x", AsyncHandler.nonBlocking((req, res, cb) -> cb.succeeded())));
        try (SocketChannel channel = SocketChannel.open()) {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
            channel.connect(address());
            FrameGenerator generator = new FrameGenerator(new HpackEncoder());
            ByteBuffer out = ByteBuffer.allocate(64 * 1024);
            out.put("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            generator.settings(out, new Http2Settings());
            generator.settingsAck(out); // acknowledges the server's SETTINGS without reading them
            out.flip();
            while (out.hasRemaining()) {
                channel.write(out);
            }
            // Send PINGs without ever reading their ACKs, until the server stops reading us (or a generous bound).
            channel.configureBlocking(false);
            ByteBuffer pings = ByteBuffer.allocate(17 * 1000);
            for (int i = 0; i < 1000; i++) {
                generator.ping(pings, i, false);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long lastProgress = System.nanoTime();
            long sent = 0;
            // Until the server stops reading us for 2 s (it closed its parser after the GOAWAY), or a generous bound.
            while (sent < 3_000_000 && System.nanoTime() < deadline) {
                pings.rewind();
                int n = channel.write(pings);
                sent += n / 17;
                if (n > 0) {
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(2)) {
                    break;
                } else {
                    Thread.onSpinWait();
                }
            }
            // Now read everything the server wrote: the GOAWAY comes after the ACKs it managed to queue.
            channel.configureBlocking(true);
            AtomicReference<ErrorCode> goAway = new AtomicReference<>();
            FrameParser parser = new FrameParser(
                    FrameParser.Side.CLIENT, new GoAwayOnly(goAway), new HpackDecoder(), FrameParser.Limits.DEFAULT);
            ByteBuffer in = ByteBuffer.allocate(1024 * 1024);
            boolean reset = false;
            try {
                while (goAway.get() == null && channel.read(in) >= 0) {
                    in.flip();
                    while (parser.parseFrame(in)) {
                        // frames go to the listener
                    }
                    in.compact();
                }
            } catch (java.net.SocketException x) {
                // The server closed with our unread PINGs in its receive buffer: the kernel answers with a reset,
                // which may overtake the GOAWAY. For an abusive peer that is the expected end.
                reset = true;
            }
            assertTrue(reset || goAway.get() != null, "the connection was not cut off");
            if (goAway.get() != null) {
                assertEquals(ErrorCode.ENHANCE_YOUR_CALM, goAway.get());
            }
            assertTrue(sent < 3_000_000, "the server kept reading " + sent + " PINGs it could not answer");
        }
    }

    /** Records the GOAWAY's code, ignores the rest. */
    private record GoAwayOnly(AtomicReference<ErrorCode> goAway) implements FrameListener {
        @Override
        public void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {}

        @Override
        public void onHeaders(int streamId, HeaderBlock block, boolean endStream) {}

        @Override
        public void onRstStream(int streamId, ErrorCode error) {}

        @Override
        public void onSettings(Http2Settings settings) {}

        @Override
        public void onSettingsAck() {}

        @Override
        public void onPing(long payload, boolean ack) {}

        @Override
        public void onGoAway(int lastStreamId, ErrorCode error, ByteBuffer debugData) {
            goAway.set(error);
        }

        @Override
        public void onWindowUpdate(int streamId, int increment) {}

        @Override
        public void onConnectionError(Http2Exception error) {
            throw error;
        }

        @Override
        public void onStreamError(Http2Exception error) {}
    }
}
