package dev.quarry.server.test;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2test.Http2TestClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A client that speaks whatever the transport of a {@link Setup} speaks — HTTP/1.1 over a raw connection, or HTTP/2 by
 * prior knowledge or by ALPN over TLS — behind one interface, so that a server test states behaviour once and runs over every transport.
 * Each client is one connection; requests on it are sent one after the other (HTTP/1.1) or as concurrent streams
 * (HTTP/2, through {@link #send} from several threads).
 *
 * <p>Thread-safety: HTTP/2 clients may be used from several threads; HTTP/1.1 clients from one at a time.
 */
public interface HttpTestClient extends AutoCloseable {

    /**
     * A response, whatever the protocol: status, fields (names in lower case) and body.
     *
     * @param status the status code
     * @param headers the response fields, by lower-case name (the last value when repeated)
     * @param body the body
     */
    record Reply(int status, Map<String, String> headers, byte[] body) {
        /** @return the body as UTF-8 text */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** @return the value of a field, by case-insensitive name */
        public Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
        }

        @Override
        public String toString() {
            return status + " " + headers + " " + (body.length > 200 ? body.length + " bytes" : text());
        }
    }

    /**
     * Sends a request and waits for its response.
     *
     * @param method the method
     * @param path the origin-form target
     * @param body the body, or null
     * @return the response
     */
    Reply send(String method, String path, byte[] body) throws IOException;

    /** @return {@code GET path}'s response */
    default Reply get(String path) throws IOException {
        return send("GET", path, null);
    }

    @Override
    void close() throws IOException;

    /**
     * Connects a client for the setup's transport.
     *
     * @param transport the transport
     * @param address where the server listens
     * @param timeout how long a response may take
     * @return the connected client
     */
    static HttpTestClient connect(Transport transport, java.net.SocketAddress address, Duration timeout)
            throws IOException {
        if (transport.http2()) {
            return new OverHttp2(
                    transport.isTls()
                            ? Http2TestClient.connect(address, transport.clientTls())
                            : Http2TestClient.connect(address),
                    timeout);
        }
        return new OverHttp1(RawClient.connect(transport, address).timeout(timeout));
    }

    /** HTTP/1.1 over a raw connection. */
    final class OverHttp1 implements HttpTestClient {
        private final RawClient raw;

        OverHttp1(RawClient raw) {
            this.raw = raw;
        }

        @Override
        public Reply send(String method, String path, byte[] body) throws IOException {
            StringBuilder head =
                    new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: test\r\n");
            if (body != null) {
                head.append("Content-Length: ").append(body.length).append("\r\n");
            }
            raw.send(head.append("\r\n").toString());
            if (body != null) {
                raw.send(body);
            }
            RawResponse response = raw.readResponse("HEAD".equals(method));
            Map<String, String> headers = new TreeMap<>();
            for (RawResponse.Field field : response.headers()) {
                headers.put(field.name().toLowerCase(Locale.ROOT), field.value());
            }
            return new Reply(response.status(), headers, response.body());
        }

        @Override
        public void close() throws IOException {
            raw.close();
        }

        @Override
        public String toString() {
            return "HTTP/1.1 " + raw;
        }
    }

    /** HTTP/2 by prior knowledge, or over TLS. */
    final class OverHttp2 implements HttpTestClient {
        private final Http2TestClient h2;
        private final Duration timeout;

        OverHttp2(Http2TestClient h2, Duration timeout) {
            this.h2 = h2;
            this.timeout = timeout;
        }

        @Override
        public Reply send(String method, String path, byte[] body) {
            int stream = h2.request(method, path, new HttpFields(), body);
            Http2TestClient.Response response = h2.awaitResponse(stream, timeout);
            Map<String, String> headers = new TreeMap<>();
            response.headers().forEach(field -> headers.put(field.name().toLowerCase(Locale.ROOT), field.value()));
            return new Reply(response.status(), headers, response.body());
        }

        @Override
        public void close() {
            h2.close();
        }

        @Override
        public String toString() {
            return "HTTP/2 " + h2;
        }
    }
}
