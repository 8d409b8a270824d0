package dev.quarry.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2test.TlsClientChannel;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.test.RawClient;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * TLS at its edges: a ClientHello cut into many records and one-byte TCP segments, a client that half-closes
 * (close_notify, then FIN) after its request, the server's close_notify and its bounded wait for the client's, and
 * TLS 1.3 key updates in the middle of large bodies in both directions.
 */
class TlsEdgeCasesTest extends ServerTestBase {

    private static void routes(ServerBuilder builder) {
        builder.route(
                "GET /hello",
                (request, response) ->
                        response.send("hello " + request.version().asString()));
    }

    /**
     * A ClientHello may arrive in pieces: split over several TLS records (RFC 8446 5.1 allows a handshake message to
     * span records) and over many TCP segments — as large hellos (post-quantum key shares) do in the wild.
     */
    @Test
    void aClientHelloCutIntoRecordsAndOneByteSegmentsIsAccepted() throws Exception {
        start(Transport.TLS, TlsEdgeCasesTest::routes);
        InetSocketAddress address = (InetSocketAddress) transport.address(server);
        try (SocketChannel channel = SocketChannel.open(address)) {
            TlsClientChannel tls = TlsClientChannel.handshake(
                    channel,
                    TestCertificates.ec().clientContext(),
                    "127.0.0.1",
                    address.getPort(),
                    List.of("http/1.1"),
                    WAIT,
                    TlsEdgeCasesTest::recordsOf100BytesSentByteByByte);
            assertEquals("http/1.1", tls.applicationProtocol());
            ByteBuffer request = ByteBuffer.wrap("GET /hello HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            while (request.hasRemaining()) {
                tls.write(request);
            }
            ByteBuffer response = ByteBuffer.allocate(4096);
            while (tls.read(response) >= 0) {
                // until the server closes (Connection: close)
            }
            String text = new String(response.array(), 0, response.position(), StandardCharsets.ISO_8859_1);
            assertTrue(text.startsWith("HTTP/1.1 200"), text);
            assertTrue(text.endsWith("hello HTTP/1.1"), text);
        }
    }

    /** Cuts the handshake records of a first flight into records of at most 100 bytes, then into single bytes. */
    private static List<ByteBuffer> recordsOf100BytesSentByteByByte(ByteBuffer flight) {
        ByteBuffer records = ByteBuffer.allocate(flight.remaining() * 2);
        int count = 0;
        while (flight.hasRemaining()) {
            byte type = flight.get();
            short version = flight.getShort();
            int length = flight.getShort() & 0xFFFF;
            for (int done = 0; done < length; done += 100) {
                int piece = Math.min(100, length - done);
                records.put(type).putShort(version).putShort((short) piece);
                for (int i = 0; i < piece; i++) {
                    records.put(flight.get());
                }
                count++;
            }
        }
        assertTrue(count >= 3, "a ClientHello of " + records.position() + " bytes makes several records");
        records.flip();
        List<ByteBuffer> bytes = new ArrayList<>();
        while (records.hasRemaining()) {
            bytes.add(ByteBuffer.wrap(new byte[] {records.get()}));
        }
        return bytes;
    }

    @Test
    void aClientThatHalfClosesAfterItsRequestGetsTheResponse() throws Exception {
        start(Transport.TLS, TlsEdgeCasesTest::routes);
        RawClient client = connect();
        client.send("GET /hello HTTP/1.1\r\nHost: test\r\n\r\n");
        client.shutdownOutput(); // close_notify, then FIN

        RawResponse response = client.readResponse();

        assertEquals(200, response.status(), response::toString);
        assertEquals("hello HTTP/1.1", new String(response.body(), StandardCharsets.UTF_8));
        assertEquals("EOF", client.awaitClosed(), "the server closes once it answered a client that is done");
        await("the server to close its side", () -> server.connectors().get(0).openConnections() == 0);
    }

    /**
     * After {@code Connection: close} the server sends close_notify and FIN, then waits for the client's close — but
     * not forever: a client that never answers is closed after the lingering bound.
     */
    @Test
    void closeNotifyIsSentAndTheWaitForTheClientIsBounded() throws Exception {
        start(Transport.TLS, TlsEdgeCasesTest::routes);
        RawClient client = connect();
        client.send("GET /hello HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");

        RawResponse response = client.readResponse();
        assertEquals(200, response.status(), response::toString);
        assertEquals("EOF", client.awaitClosed(), "close_notify (and FIN) after the response");

        // The client neither answers close_notify nor closes: the server gives up after its lingering bound.
        long started = System.nanoTime();
        await(
                "the server to close the connection",
                () -> server.connectors().get(0).openConnections() == 0);
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(waitedMillis < 15_000, "closed after " + waitedMillis + " ms");
    }

    /**
     * TLS 1.3 KeyUpdate in the middle of a stream, both ways: a child JVM whose key limits ({@code jdk.tls.keyLimits},
     * a security property JSSE reads once, when it initialises: hence the separate process) make the server and the
     * client update their keys every 64 KiB, while a client uploads and downloads megabytes over HTTP/2 and HTTP/1.1.
     */
    @Test
    void keyUpdatesInTheMiddleOfLargeBodiesAreHandled() throws Exception {
        Path security = Files.writeString(
                tempDir.resolve("key-limits.security"),
                "jdk.tls.keyLimits=AES/GCM/NoPadding KeyUpdate 2^16, ChaCha20-Poly1305 KeyUpdate 2^16\n");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(
                        java.toString(),
                        "-Djava.security.properties=" + security,
                        "-Djavax.net.debug=ssl:handshake",
                        "-cp",
                        System.getProperty("java.class.path"),
                        KeyUpdateChild.class.getName())
                .redirectErrorStream(true)
                .start();
        Path output = tempDir.resolve("child.txt");
        Thread copier = Thread.ofPlatform().start(() -> {
            try (var in = child.getInputStream()) {
                Files.copy(in, output);
            } catch (IOException x) {
                // the assertions below say what was missing
            }
        });
        boolean finished = child.waitFor(WAIT.toSeconds() * 3, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly();
        }
        copier.join(WAIT.toMillis());
        List<String> lines = Files.readAllLines(output, StandardCharsets.ISO_8859_1);
        String tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        assertTrue(finished, "the child JVM did not finish: " + tail);
        assertEquals(0, child.exitValue(), tail);
        assertTrue(lines.contains("OK h2"), tail);
        assertTrue(lines.contains("OK http/1.1"), tail);
        long produced = lines.stream()
                .filter(line -> line.contains("Produced KeyUpdate"))
                .count();
        long consumed = lines.stream()
                .filter(line -> line.contains("Consuming KeyUpdate"))
                .count();
        assertTrue(produced >= 10 && consumed >= 10, "key updates produced " + produced + ", consumed " + consumed);
    }
}
