package dev.quarry.server.internal.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2test.Http2TestClient;
import dev.quarry.io.EndPoint;
import dev.quarry.io.TlsConnection;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import dev.quarry.server.test.Transport;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A fault reading a file mapping that surfaces outside the flusher's per-stream guard (as the JVM delivers it once the
 * copying code is compiled: at the thread's next safepoint poll) fails that one connection cleanly: the client gets
 * GOAWAY INTERNAL_ERROR and the connection closes, the write's callback fails, no buffer leaks, and the server goes on
 * serving other connections. The fault is injected where such a delivery could surface: in the generation of a frame,
 * past the copy.
 */
class Http2MappingFaultTest extends ServerTestBase {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /**
     * A file mapping's frame whose generation meets the fault after it wrote bytes, as a late delivery of its copy's
     * fault does.
     */
    private static final class FaultSurfacingEntry extends Http2Flusher.Entry {
        FaultSurfacingEntry(Http2Stream stream, Callback callback) {
            super(stream, callback);
        }

        @Override
        boolean isFileMapping() {
            return true; // the frame whose copy faulted
        }

        @Override
        Http2Flusher.Generated generate(Http2Flusher flusher, ByteBuffer out) {
            flusher.generator().dataHeader(out, stream.id(), 0, false);
            throw new InternalError(
                    "a fault occurred in a recent unsafe memory access operation in compiled Java code");
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"H2C", "TLS_H2"})
    void aFaultPastTheCopysGuardFailsOnlyItsConnection(Transport transport) throws Exception {
        start(
                transport,
                builder -> builder.handler(AsyncHandler.nonBlocking((request, response, callback) ->
                        response.write(true, ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)), callback))));
        Http2TestClient faulted = track(connectHttp2());
        assertEquals(200, faulted.awaitResponse(faulted.get("/"), TIMEOUT).status());

        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Http2ServerConnection connection = onlyConnection();
        connection.send(new FaultSurfacingEntry(
                new Http2Stream(1, null, 65_535),
                Callback.from(
                        InvocationType.NON_BLOCKING,
                        () -> failures.add(new AssertionError("succeeded")),
                        failures::add)));

        assertEquals(ErrorCode.INTERNAL_ERROR, faulted.awaitGoAway(TIMEOUT).error());
        faulted.awaitClosed(TIMEOUT);
        assertEquals(1, failures.size(), failures::toString);
        assertInstanceOf(IOException.class, failures.get(0));
        assertInstanceOf(InternalError.class, failures.get(0).getCause(), "the fault is the cause");
        await(
                "the faulted connection is gone",
                () -> server.connectors().get(0).endPoints().isEmpty());

        Http2TestClient other = track(connectHttp2());
        Http2TestClient.Response response = other.awaitResponse(other.get("/"), TIMEOUT);
        assertEquals(200, response.status());
        assertEquals("hello", response.bodyAsString());
    }

    private Http2TestClient connectHttp2() {
        SocketAddress address = transport.address(server);
        return transport.isTls()
                ? Http2TestClient.connect(address, TestCertificates.ec().clientContext())
                : Http2TestClient.connect(address);
    }

    /** @return the HTTP/2 connection of the one client connected */
    private Http2ServerConnection onlyConnection() {
        List<Http2ServerConnection> connections = server.connectors().get(0).endPoints().stream()
                .map(EndPoint::connection)
                .map(c ->
                        c instanceof TlsConnection tls ? tls.decryptedEndPoint().connection() : c)
                .filter(Http2ServerConnection.class::isInstance)
                .map(Http2ServerConnection.class::cast)
                .toList();
        assertEquals(1, connections.size(), connections::toString);
        assertTrue(!connections.get(0).isClosed());
        return connections.get(0);
    }
}
