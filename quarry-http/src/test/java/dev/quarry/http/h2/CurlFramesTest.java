package dev.quarry.http.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.h2test.FrameRecorder;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Parses what a real client sends: {@code curl --http2-prior-knowledge} against a bare socket whose only HTTP/2 code is
 * a server-side {@link FrameParser} and a {@link FrameGenerator}, which answer it well enough for curl to print the body
 * and exit 0. Skipped when curl (with HTTP/2) is not installed.
 */
class CurlFramesTest {

    private static boolean curlWithHttp2() {
        try {
            Process process = new ProcessBuilder("curl", "--version")
                    .redirectErrorStream(true)
                    .start();
            String version = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0 && version.contains("HTTP2");
        } catch (IOException x) {
            return false;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void curlPriorKnowledgeRequestParsesAndGetsItsResponse() throws Exception {
        assumeTrue(curlWithHttp2(), "curl with HTTP/2 support is not installed");
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listener.setSoTimeout(15_000);
            int port = listener.getLocalPort();
            Process curl = new ProcessBuilder(
                            "curl",
                            "--http2-prior-knowledge",
                            "-sS",
                            "-m",
                            "15",
                            "-H",
                            "x-test: frames",
                            "--data-binary",
                            "ping",
                            "http://127.0.0.1:" + port + "/curl/path?q=1")
                    .redirectErrorStream(true)
                    .start();
            try (Socket socket = listener.accept()) {
                socket.setSoTimeout(15_000);
                List<FrameEvent> events = serve(socket);
                FrameEvent.Headers headers = events.stream()
                        .filter(FrameEvent.Headers.class::isInstance)
                        .map(FrameEvent.Headers.class::cast)
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no HEADERS from curl: " + events));
                assertEquals(1, headers.streamId());
                RequestHead head = Http2Messages.request(1, headers.block());
                assertEquals("POST", head.method());
                assertEquals("http", head.scheme());
                assertEquals("127.0.0.1:" + port, head.authority());
                assertEquals("/curl/path?q=1", head.path());
                assertTrue(
                        head.fields().get(HttpHeader.USER_AGENT).orElseThrow().startsWith("curl/"));
                assertEquals("frames", head.fields().get("x-test").orElseThrow());
                assertEquals(4, head.contentLength());
                assertInstanceOf(FrameEvent.Settings.class, events.get(0), "curl's preface begins with SETTINGS");
                assertFalse(
                        events.stream()
                                .anyMatch(e ->
                                        e instanceof FrameEvent.ConnectionError || e instanceof FrameEvent.StreamError),
                        events.toString());
                // Keep the socket open until curl has read the response: closing with unread input would reset it.
                assertTrue(curl.waitFor(15, TimeUnit.SECONDS), "curl did not finish");
            }
            String output = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, curl.exitValue(), output);
            assertEquals("hello curl, you sent ping", output);
        }
    }

    /** Reads curl's frames until its request body ended, answering like a minimal server. */
    private static List<FrameEvent> serve(Socket socket) throws IOException {
        FrameRecorder recorder = new FrameRecorder();
        FrameParser parser =
                new FrameParser(FrameParser.Side.SERVER, recorder, new HpackDecoder(), FrameParser.Limits.DEFAULT);
        parser.expectPreface();
        FrameGenerator generator = new FrameGenerator(new HpackEncoder());
        OutputStream output = socket.getOutputStream();
        ByteBuffer out = ByteBuffer.allocate(64 * 1024);
        generator.settings(out, new Http2Settings().set(Http2Settings.MAX_CONCURRENT_STREAMS, 10));
        flush(out, output);

        InputStream input = socket.getInputStream();
        ByteBuffer in = ByteBuffer.allocate(FrameParser.Limits.DEFAULT.maxFrameSize() + 9);
        StringBuilder body = new StringBuilder();
        boolean requestDone = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!requestDone && System.nanoTime() < deadline) {
            int read;
            try {
                read = input.read(in.array(), in.position(), in.remaining());
            } catch (SocketTimeoutException x) {
                break;
            }
            if (read < 0) {
                break;
            }
            in.position(in.position() + read).flip();
            int seen = recorder.events().size();
            while (parser.parseFrame(in)) {
                // one frame per call
            }
            in.compact();
            for (FrameEvent event :
                    recorder.events().subList(seen, recorder.events().size())) {
                switch (event) {
                    case FrameEvent.Settings settings -> generator.settingsAck(out);
                    case FrameEvent.Headers headers when headers.endStream() -> requestDone = true;
                    case FrameEvent.Data data -> {
                        body.append(new String(data.data(), StandardCharsets.UTF_8));
                        requestDone |= data.endStream();
                    }
                    default -> {}
                }
            }
            if (requestDone) {
                byte[] content = ("hello curl, you sent " + body).getBytes(StandardCharsets.UTF_8);
                HttpFields fields = new HttpFields()
                        .add(HttpHeader.CONTENT_TYPE, "text/plain")
                        .add(HttpHeader.CONTENT_LENGTH, Integer.toString(content.length));
                generator.responseHeaders(out, 1, 200, fields, false);
                generator.data(out, 1, ByteBuffer.wrap(content), true);
                generator.goAway(out, 1, ErrorCode.NO_ERROR, "done");
            }
            flush(out, output);
        }
        return recorder.events();
    }

    private static void flush(ByteBuffer out, OutputStream output) throws IOException {
        output.write(out.array(), 0, out.position());
        output.flush();
        out.clear();
    }
}
