package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.server.Server;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment of docs/deploy.md, end to end: Debian's haproxy terminates TLS and balances two {@code quarry serve}
 * instances listening on Unix-domain sockets with {@code --proxy-protocol}, to which it sends {@code send-proxy-v2}.
 * The handler must see the real client (address and source port), and per-client throttling must count that client,
 * not the proxy. Skipped, with a warning, where haproxy is not installed ({@code .ci/run} installs it).
 */
class HaproxyTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String PASSWORD = "quarry-test";

    @TempDir
    Path dir;

    private final List<Server> servers = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private Process haproxy;
    private Path haproxyLog;
    private SSLContext trusting;
    private int port;

    @AfterEach
    void stop() throws Exception {
        for (Socket socket : sockets) {
            socket.close();
        }
        if (haproxy != null) {
            haproxy.destroy();
            if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                haproxy.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        for (Server server : servers) {
            server.stop();
        }
    }

    /** @return haproxy, from $HAPROXY or the usual places; empty when it is not installed */
    static Optional<Path> binary() {
        String named = System.getenv("HAPROXY");
        List<Path> candidates = new ArrayList<>();
        if (named != null && !named.isBlank()) {
            candidates.add(Path.of(named));
        }
        candidates.add(Path.of("/usr/sbin/haproxy"));
        candidates.add(Path.of("/usr/local/sbin/haproxy"));
        candidates.add(Path.of("/usr/bin/haproxy"));
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    @Test
    void haproxyTerminatesTlsAndBalancesTwoServersThatSeeTheRealClient() throws Exception {
        Optional<Path> binary = binary();
        if (binary.isEmpty()) {
            System.err.println("WARNING HaproxyTest skipped: haproxy is not installed (apt-get install haproxy, or set"
                    + " HAPROXY to its path)");
        }
        Assumptions.assumeTrue(binary.isPresent(), "haproxy is not installed");
        Path pem = certificate();
        Path first = dir.resolve("q1.sock");
        Path second = dir.resolve("q2.sock");
        servers.add(serve(first));
        servers.add(serve(second));
        startHaproxy(binary.get(), pem, first, second);

        // The handler sees the client's address and source port, on each instance in turn (roundrobin).
        for (int i = 0; i < 2; i++) {
            Socket client = connect(InetAddress.getByName("127.0.0.1"));
            String answer = request(client, "/whoami", true);
            assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
            assertTrue(answer.endsWith("\r\n\r\n127.0.0.1:" + client.getLocalPort() + "\n"), answer);
        }
        await(
                "both instances served a request",
                () -> servers.stream().allMatch(server -> server.statistics().requests() >= 1));

        // And over HTTP/2, as the JDK's client negotiates it with haproxy.
        try (HttpClient http = HttpClient.newBuilder()
                .sslContext(trusting)
                .connectTimeout(WAIT)
                .build()) {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/whoami"))
                            .timeout(WAIT)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertEquals(HttpClient.Version.HTTP_2, response.version());
            assertTrue(response.body().startsWith("127.0.0.1:"), response.body());
        }

        // Per-client throttling (--max-connections-per-client 1) counts the real client: once 127.0.0.1 holds a
        // throttled download on each instance, its next one is refused, and another client's is not.
        InetAddress a = InetAddress.getByName("127.0.0.1");
        int started = 0;
        for (int attempt = 0; attempt < 6 && !holdsADownloadOnEach(); attempt++) {
            String head = request(connect(a), "/download/200k.bin", false);
            if (head.startsWith("HTTP/1.1 200")) {
                started++;
            }
            int expected = started;
            await("the download admitted", () -> activeDownloads() == expected);
        }
        assertTrue(holdsADownloadOnEach(), "127.0.0.1 holds a download on both instances: " + activeDownloads());
        String refused = request(connect(a), "/download/200k.bin", false);
        assertTrue(refused.startsWith("HTTP/1.1 429"), refused);
        String other = request(connect(InetAddress.getByName("127.0.0.2")), "/download/200k.bin", false);
        assertTrue(other.startsWith("HTTP/1.1 200"), "another client is not throttled with the first: " + other);
    }

    /** A {@code quarry serve} of the demo site on a Unix socket, as docs/deploy.md runs it behind haproxy. */
    private static Server serve(Path socket) throws Exception {
        Options options = Options.parse(
                List.of(
                        "--unix",
                        socket.toString(),
                        "--proxy-protocol",
                        "--max-connections-per-client",
                        "1",
                        "--jmx",
                        "off"),
                ServeCommand.OPTIONS,
                ServeCommand.FLAGS);
        return ServeCommand.build(options).start();
    }

    private long activeDownloads() {
        return servers.stream().mapToLong(HaproxyTest::activeDownloads).sum();
    }

    private static long activeDownloads(Server server) {
        Map<String, Object> throttle = server.status().section("throttle");
        return ((Number) throttle.get("active requests")).longValue();
    }

    private boolean holdsADownloadOnEach() {
        return servers.stream().allMatch(server -> activeDownloads(server) == 1);
    }

    /** A self-signed certificate for localhost: the PEM haproxy takes (chain then key), and a client trusting it. */
    private Path certificate() throws Exception {
        Path store = dir.resolve("haproxy.p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "haproxy",
                        "-keyalg",
                        "EC",
                        "-groupname",
                        "secp256r1",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "SAN=dns:localhost,ip:127.0.0.1",
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        PASSWORD)
                .redirectErrorStream(true)
                .start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            fail("keytool failed: " + output);
        }
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        PrivateKey key = (PrivateKey) keys.getKey("haproxy", PASSWORD.toCharArray());
        Certificate certificate = keys.getCertificate("haproxy");
        Path pem = dir.resolve("haproxy.pem");
        Files.writeString(pem, pem("CERTIFICATE", certificate.getEncoded()) + pem("PRIVATE KEY", key.getEncoded()));
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("haproxy", certificate);
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        trusting = SSLContext.getInstance("TLS");
        trusting.init(null, trustManagers.getTrustManagers(), null);
        return pem;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    /**
     * Starts haproxy on a free port, in the foreground, by PID, its life bounded by {@code timeout} should this JVM die
     * before {@link #stop()}; returns once it accepts connections.
     */
    private void startHaproxy(Path binary, Path pem, Path first, Path second) throws Exception {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = probe.getLocalPort(); // haproxy cannot bind port 0 and say which it got
        }
        Path config = dir.resolve("haproxy.cfg");
        Files.writeString(config, """
                global
                    maxconn 256

                defaults
                    mode http
                    timeout connect 5s
                    timeout client 30s
                    timeout server 30s

                frontend https
                    bind 127.0.0.1:%d ssl crt %s alpn h2,http/1.1
                    default_backend quarry

                backend quarry
                    balance roundrobin
                    server q1 unix@%s send-proxy-v2
                    server q2 unix@%s send-proxy-v2
                """.formatted(port, pem, first, second));
        haproxyLog = dir.resolve("haproxy.log");
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/timeout"))) {
            command.addAll(List.of("/usr/bin/timeout", "120"));
        }
        command.addAll(List.of(binary.toString(), "-db", "-f", config.toString()));
        haproxy = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(haproxyLog.toFile())
                .start();
        await("haproxy listening on 127.0.0.1:" + port, () -> {
            if (!haproxy.isAlive()) {
                fail("haproxy exited with " + haproxy.exitValue() + ": " + log());
            }
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return true;
            } catch (IOException x) {
                return false;
            }
        });
    }

    private String log() {
        try {
            return Files.readString(haproxyLog);
        } catch (IOException x) {
            return "(no log: " + x + ")";
        }
    }

    /** A TLS connection to haproxy from {@code local} (another loopback address is another client). */
    private Socket connect(InetAddress local) throws IOException {
        Socket plain = new Socket();
        sockets.add(plain);
        plain.bind(new InetSocketAddress(local, 0));
        plain.connect(new InetSocketAddress("127.0.0.1", port), (int) WAIT.toMillis());
        plain.setSoTimeout((int) WAIT.toMillis());
        SSLSocket tls = (SSLSocket) trusting.getSocketFactory().createSocket(plain, "localhost", port, true);
        sockets.add(tls);
        return tls;
    }

    /**
     * Sends {@code GET path} over HTTP/1.1.
     *
     * @param whole true: read the whole answer ({@code Connection: close}); false: its head only, leaving the body
     *     (a throttled download) in flight
     */
    private static String request(Socket socket, String path, boolean whole) throws IOException {
        socket.getOutputStream()
                .write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n" + (whole ? "Connection: close\r\n" : "")
                                + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        if (whole) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                return head.toString(StandardCharsets.ISO_8859_1);
            }
            head.write(b);
            byte[] bytes = head.toByteArray();
            int n = bytes.length;
            if (n >= 4
                    && bytes[n - 4] == '\r'
                    && bytes[n - 3] == '\n'
                    && bytes[n - 2] == '\r'
                    && bytes[n - 1] == '\n') {
                return head.toString(StandardCharsets.ISO_8859_1);
            }
        }
    }

    private void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + WAIT + " waiting until " + what + "; haproxy said: " + log());
            }
            // Polling interval of a condition wait, not a wait for the condition itself.
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }
}
