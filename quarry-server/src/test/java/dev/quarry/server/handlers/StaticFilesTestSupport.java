package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.HttpConfig;
import dev.quarry.server.Server;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.test.TestCertificates;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server with {@link StaticFiles} over a temporary root, and a raw HTTP/1.1 client that shows every byte; over TLS in
 * the {@code ...OverTlsTest} subclasses (where files cannot go zero-copy, and are read and encrypted instead).
 */
@ExtendWith(LeakTrackingPoolExtension.class)
abstract class StaticFilesTestSupport {
    /** The modification time of files written by {@link #write}: long past, so that Last-Modified is strong. */
    static final Instant MODIFIED = Instant.parse("2024-01-02T03:04:05Z");

    static final String MODIFIED_HTTP = "Tue, 02 Jan 2024 03:04:05 GMT";

    @TempDir
    Path tempDir;

    Path root;
    ByteBufferPool pool;
    Server server;
    StaticFiles files;

    @BeforeEach
    void createRoot(ByteBufferPool pool) throws IOException {
        this.pool = pool;
        this.root = Files.createDirectory(tempDir.resolve("www"));
    }

    @AfterEach
    void stopServer() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    /** @return whether the server listens on HTTPS (with the test certificate) and the clients speak TLS */
    boolean overTls() {
        return false;
    }

    StaticFiles start() throws IOException {
        return start(StaticFiles.builder(root));
    }

    StaticFiles start(StaticFilesBuilder builder) throws IOException {
        return start(builder, b -> b);
    }

    StaticFiles start(StaticFilesBuilder builder, UnaryOperator<ServerBuilder> configure) throws IOException {
        files = builder.build();
        startServer(files, configure);
        return files;
    }

    void startServer(AsyncHandler handler, UnaryOperator<ServerBuilder> configure) throws IOException {
        ServerBuilder serverBuilder = Server.builder();
        if (overTls()) {
            TestCertificates certificates = TestCertificates.ec();
            serverBuilder.https(
                    "127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD));
        } else {
            serverBuilder.http("127.0.0.1", 0);
        }
        serverBuilder.buffers(pool).httpConfig(HttpConfig.DEFAULT).handler(handler);
        server = configure.apply(serverBuilder).build().start();
    }

    /** Writes a UTF-8 file under the root, creating directories, with the modification time {@link #MODIFIED}. */
    Path write(String relative, String content) throws IOException {
        return write(relative, content.getBytes(StandardCharsets.UTF_8));
    }

    Path write(String relative, byte[] content) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.write(file, content);
        Files.setLastModifiedTime(file, FileTime.from(MODIFIED));
        return file;
    }

    Reply get(String target, String... headers) throws IOException {
        return request("GET", target, headers);
    }

    Reply head(String target, String... headers) throws IOException {
        return request("HEAD", target, headers);
    }

    /** Sends one request with {@code Connection: close} and reads the response until the server closes. */
    Reply request(String method, String target, String... headers) throws IOException {
        StringBuilder request = new StringBuilder()
                .append(method)
                .append(' ')
                .append(target)
                .append(" HTTP/1.1\r\nHost: localhost\r\n");
        for (String header : headers) {
            request.append(header).append("\r\n");
        }
        request.append("Connection: close\r\n\r\n");
        return exchange(request.toString());
    }

    /** Sends raw bytes and reads the response until the server closes the connection. */
    Reply exchange(String raw) throws IOException {
        try (Socket socket = overTls()
                ? TestCertificates.ec().clientContext().getSocketFactory().createSocket("127.0.0.1", server.port())
                : new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            return Reply.parse(all.toByteArray());
        }
    }

    /** @return a JDK client builder that trusts the server's certificate when {@link #overTls()} */
    HttpClient.Builder httpClient() {
        HttpClient.Builder builder = HttpClient.newBuilder();
        if (overTls()) {
            builder.sslContext(TestCertificates.ec().clientContext());
        }
        return builder;
    }

    /** A response as received. */
    record Reply(int status, Map<String, List<String>> headers, byte[] body) {
        static Reply parse(byte[] bytes) {
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (end < 0) {
                throw new AssertionError("no complete response head in " + bytes.length + " bytes: "
                        + text.substring(0, Math.min(200, text.length())));
            }
            String[] lines = text.substring(0, end).split("\r\n");
            int status = Integer.parseInt(lines[0].substring(9, 12));
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.computeIfAbsent(lines[i].substring(0, colon).toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                        .add(lines[i].substring(colon + 1).trim());
            }
            byte[] body = new byte[bytes.length - end - 4];
            System.arraycopy(bytes, end + 4, body, 0, body.length);
            return new Reply(status, headers, body);
        }

        /** @return the only value of a field, or null if absent */
        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            if (values == null) {
                return null;
            }
            assertEquals(1, values.size(), "one " + name + " field: " + values);
            return values.get(0);
        }

        boolean has(String name) {
            return headers.containsKey(name.toLowerCase(Locale.ROOT));
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** Checks that the body is as long as Content-Length says. */
        Reply assertFramed() {
            assertEquals(Long.parseLong(header("Content-Length")), body.length, "body length = Content-Length");
            return this;
        }

        @Override
        public String toString() {
            return status + " " + headers + " (" + body.length + " bytes)";
        }
    }
}
