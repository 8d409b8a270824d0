package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.HttpVersion;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The client against a real nginx (Debian's package; {@code $NGINX} or {@code /usr/sbin/nginx}), started by this test
 * in the foreground with a generated configuration, stopped by PID: HTTP/1.1, h2c by prior knowledge (an
 * {@code http2} listener), and the h2c upgrade, which nginx declines (the exchange goes on over HTTP/1.1). nginx closes
 * an HTTP/1.1 connection after {@value #KEEPALIVE_REQUESTS} requests ({@code Connection: close}), so every HTTP/1.1
 * load churns connections (and so does an h2c load on a listener that ends every connection with GOAWAY: see
 * {@link #h2cLoadWithGoAwayChurnLosesNothing}); it refuses exchanges beyond the client's connection limit ({@code limit_conn}, 503)
 * and streams beyond {@value #MAX_STREAMS} per connection (REFUSED_STREAM, logged). Skipped, with a warning, where
 * nginx is not installed.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NginxInteropTest {
    private static final int KEEPALIVE_REQUESTS = 10;
    private static final int MAX_STREAMS = 4;
    private static final int MAX_CONNECTIONS = 3;
    private static final int IDS = 512;
    private static final long CHURN_IDLE_MILLIS = 300;
    private static final AtomicInteger RUNS = new AtomicInteger();

    @TempDir
    static Path dir;

    private static Process nginx;
    private static final Map<String, Integer> ports = new HashMap<>();
    private static ServerSocket silent;

    private HttpClient client;

    enum Protocol {
        HTTP_1_1("h1", HttpVersion.HTTP_1_1),
        H2C("h2", HttpVersion.HTTP_2),
        /** nginx does not implement the h2c upgrade: the client offers it and goes on over HTTP/1.1. */
        H2C_UPGRADE_DECLINED("h1", HttpVersion.HTTP_1_1);

        final String listener;
        final HttpVersion version;

        Protocol(String listener, HttpVersion version) {
            this.listener = listener;
            this.version = version;
        }

        HttpClient.Builder configure(HttpClient.Builder builder) {
            return switch (this) {
                case HTTP_1_1 -> builder;
                case H2C -> builder.http2(true);
                case H2C_UPGRADE_DECLINED -> builder.http2(true).h2cUpgrade(true);
            };
        }
    }

    /** @return nginx, from $NGINX or the usual places; empty when it is not installed */
    static Optional<Path> binary() {
        String named = System.getenv("NGINX");
        List<Path> candidates = new ArrayList<>();
        if (named != null && !named.isBlank()) {
            candidates.add(Path.of(named));
        }
        candidates.add(Path.of("/usr/sbin/nginx"));
        candidates.add(Path.of("/usr/local/sbin/nginx"));
        candidates.add(Path.of("/usr/bin/nginx"));
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    @BeforeAll
    static void startNginx() throws Exception {
        Optional<Path> binary = binary();
        if (binary.isEmpty()) {
            System.err.println("WARNING NginxInteropTest skipped: nginx is not installed (apt-get install nginx-light,"
                    + " or set NGINX to its path)");
        }
        Assumptions.assumeTrue(binary.isPresent(), "nginx is not installed");
        // An upstream that accepts connections (in the kernel's backlog) and never answers: /slow waits on it.
        silent = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        Path www = Files.createDirectories(dir.resolve("www"));
        Files.createDirectories(www.resolve("ids"));
        Files.createDirectories(www.resolve("dav"));
        for (int id = 0; id < IDS; id++) {
            Files.writeString(www.resolve("ids/" + id), "id=" + id);
        }
        for (String name : List.of("h1", "h2", "churn-h1", "churn-h2", "goaway-h2")) {
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
                ports.put(name, probe.getLocalPort()); // nginx cannot bind port 0 and say which it got
            }
        }
        Path config = dir.resolve("nginx.conf");
        Files.writeString(config, configuration(www));
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/timeout"))) {
            command.addAll(List.of("/usr/bin/timeout", "600")); // should this JVM die before stopping it
        }
        command.addAll(List.of(binary.get().toString(), "-p", dir.toString(), "-c", config.toString(), "-e", "stderr"));
        nginx = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("nginx.out").toFile())
                .start();
        for (String name : ports.keySet()) {
            InteropLoad.await(() -> listening(ports.get(name)), "nginx listening on " + name);
        }
    }

    private static String configuration(Path www) {
        // One process in the foreground (no daemon, no master), every path in the temporary directory. Two servers
        // serve the same routes: the first for the load (limits and frequent closes), the second closes idle
        // connections quickly (churn).
        String routes = """
                    root %1$s;
                    location = /hello { return 200 "Hello from nginx"; }
                    location = /method { return 200 $request_method; }
                    location = /redirect { return 302 /hello; }
                    location = /redirect-chain { return 301 /redirect; }
                    location = /see-other { return 303 /method; }
                    location /ids/ { access_log %2$s/ids.log ids; }
                    location /dav/ {
                        dav_methods PUT DELETE;
                        create_full_put_path on;
                        client_max_body_size 0;
                    }
                    location = /slow {
                        proxy_pass http://127.0.0.1:%3$d;
                        proxy_read_timeout 60s;
                    }
                """.formatted(www, dir, silent.getLocalPort());
        return """
                daemon off;
                master_process off;
                worker_processes 1;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log info;
                events { worker_connections 1024; }
                http {
                    access_log off;
                    log_format ids '$uri $arg_run';
                    default_type application/octet-stream;
                    client_body_temp_path %1$s/body;
                    proxy_temp_path %1$s/proxy;
                    fastcgi_temp_path %1$s/fastcgi;
                    uwsgi_temp_path %1$s/uwsgi;
                    scgi_temp_path %1$s/scgi;
                    keepalive_requests %2$d;
                    http2_max_concurrent_streams %3$d;
                    limit_conn_zone $server_port zone=perport:1m;
                    limit_conn_log_level error;
                    server {
                        listen 127.0.0.1:%4$d;
                        limit_conn perport %5$d;
                %8$s
                    }
                    server {
                        listen 127.0.0.1:%6$d http2;
                        limit_conn perport %7$d;
                        keepalive_requests 1000000;
                %8$s
                    }
                    server {
                        listen 127.0.0.1:%12$d http2;
                        limit_conn perport %7$d;
                %8$s
                    }
                    server {
                        listen 127.0.0.1:%9$d;
                        listen 127.0.0.1:%10$d http2;
                        keepalive_timeout %11$dms;
                %8$s
                    }
                }
                """.formatted(
                        dir,
                        KEEPALIVE_REQUESTS,
                        MAX_STREAMS,
                        ports.get("h1"),
                        MAX_CONNECTIONS,
                        ports.get("h2"),
                        MAX_CONNECTIONS * MAX_STREAMS,
                        routes,
                        ports.get("churn-h1"),
                        ports.get("churn-h2"),
                        CHURN_IDLE_MILLIS,
                        ports.get("goaway-h2"));
    }

    private static boolean listening(int port) {
        if (!nginx.isAlive()) {
            fail("nginx exited with " + nginx.exitValue() + ": " + read("nginx.out") + read("error.log"));
        }
        try (Socket probe = new Socket()) {
            probe.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException x) {
            return false;
        }
    }

    private static String read(String name) {
        try {
            Path file = dir.resolve(name);
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException x) {
            return "(cannot read " + name + ": " + x + ")";
        }
    }

    @AfterAll
    static void stopNginx() throws Exception {
        if (nginx != null) {
            nginx.destroy(); // SIGTERM, to the one process started (through timeout, which passes it on)
            if (!nginx.waitFor(10, TimeUnit.SECONDS)) {
                nginx.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (silent != null) {
            silent.close();
        }
    }

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    private HttpClient client(ByteBufferPool pool, Protocol protocol, HttpClient.Builder builder) {
        client = protocol.configure(builder).bufferPool(pool).build();
        return client;
    }

    private static String uri(Protocol protocol, String path) {
        return "http://127.0.0.1:" + ports.get(protocol.listener) + path;
    }

    private static String churnUri(Protocol protocol, String path) {
        return "http://127.0.0.1:" + ports.get("churn-" + protocol.listener) + path;
    }

    private DestinationStatistics stats() {
        return client.statistics().get(0);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void getsWithTheProtocolAsked(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        for (int i = 0; i < 3; i++) {
            HttpResponse response = client.send(HttpRequest.get(uri(protocol, "/hello")));
            assertEquals(200, response.status());
            assertEquals(protocol.version, response.version());
            assertTrue(response.headers().get("Server").orElseThrow().startsWith("nginx"));
            assertEquals("Hello from nginx", response.asString());
        }
        assertEquals(1, stats().opened(), client.toString());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void uploadsAndDownloadsAFileBothWays(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        long length = 16L * 1024 * 1024;
        String name = "/dav/" + protocol + "-" + RUNS.incrementAndGet();
        // Chunked (unknown length), through nginx's request buffering to a file (WebDAV PUT).
        HttpRequest put = HttpRequest.newBuilder(uri(protocol, name))
                .PUT(RequestBody.ofStream(InteropLoad.generated(length)))
                .build();
        try (HttpResponse response = client.send(put)) {
            assertEquals(201, response.status(), response::toString);
        }
        try (HttpResponse response = client.send(HttpRequest.get(uri(protocol, name)))) {
            assertEquals(200, response.status());
            assertEquals(
                    Long.toString(length),
                    response.headers().get("Content-Length").orElseThrow());
            assertEquals(length, InteropLoad.readGenerated(response.body()));
        }
        // Known length, replacing it.
        HttpRequest replace = HttpRequest.newBuilder(uri(protocol, name))
                .PUT(RequestBody.ofStream(InteropLoad.generated(length / 2), length / 2))
                .build();
        try (HttpResponse response = client.send(replace)) {
            assertEquals(204, response.status(), response::toString);
        }
        try (HttpResponse response = client.send(HttpRequest.get(uri(protocol, name)))) {
            assertEquals(length / 2, InteropLoad.readGenerated(response.body()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void concurrentLoadWithChurnLosesNothingAndStaysWithinNginxsLimits(Protocol protocol, ByteBufferPool pool)
            throws Exception {
        client(pool, protocol, HttpClient.builder().maxConnectionsPerDestination(MAX_CONNECTIONS));
        String run = protocol + "-" + RUNS.incrementAndGet();
        int workers = 64;
        int perWorker = IDS / workers;
        // A 503 (limit_conn: more exchanges at once than the client's connections can carry) fails the load.
        int answered = withNginxsLog(() -> InteropLoad.run(
                client, workers, perWorker, id -> HttpRequest.get(uri(protocol, "/ids/" + id + "?run=" + run))));
        assertEquals(IDS, answered);
        assertEachIdLoggedOnce(run, IDS);
        DestinationStatistics stats = stats();
        assertTrue(stats.maxOpen() <= MAX_CONNECTIONS, stats.toString());
        if (protocol.version == HttpVersion.HTTP_1_1) {
            // nginx closed each connection after KEEPALIVE_REQUESTS requests: the pool was renewed all along.
            assertTrue(stats.opened() >= IDS / KEEPALIVE_REQUESTS, stats.toString());
        }
        String log = read("error.log");
        assertFalse(log.contains("concurrent streams exceeded"), log);
        assertFalse(log.contains("limiting connections"), log);
    }

    /**
     * The h2c load where nginx ends every connection after {@value #KEEPALIVE_REQUESTS} streams (GOAWAY, then the close
     * once it answered what it owes), about 50 connections in all: nothing is lost, nothing is sent twice. Requests
     * above a GOAWAY's last stream id are retried elsewhere; the GOAWAY's last stream is answered in full right before
     * nginx's close, which once failed it in about one run in seven when the close also failed the still pending write
     * of its HEADERS frame (see {@code Http2ServerGoesAwayTest}). Under a second on an idle machine, bounded by the
     * load's own limit and the class's timeout.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = Protocol.class,
            names = {"H2C"})
    void h2cLoadWithGoAwayChurnLosesNothing(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder().maxConnectionsPerDestination(MAX_CONNECTIONS));
        String run = protocol + "-goaway-" + RUNS.incrementAndGet();
        String base = "http://127.0.0.1:" + ports.get("goaway-h2");
        int answered = withNginxsLog(() ->
                InteropLoad.run(client, 64, IDS / 64, id -> HttpRequest.get(base + "/ids/" + id + "?run=" + run)));
        assertEquals(IDS, answered);
        assertEachIdLoggedOnce(run, IDS);
        assertTrue(stats().opened() >= IDS / KEEPALIVE_REQUESTS, stats().toString());
        // A connection nginx sent GOAWAY on leaves the pool at once and finishes its streams outside the limit (see
        // HttpClient.Builder#maxConnectionsPerDestination), so its replacement can open before nginx's close arrives:
        // seen in about one run in 600. Each pooled connection drains within a second, so never two per slot.
        assertTrue(stats().maxOpen() <= 2 * MAX_CONNECTIONS, stats().toString());
    }

    /** A load whose failure also shows what nginx logged (at info level: refused streams, closed connections). */
    private static int withNginxsLog(java.util.concurrent.Callable<Integer> load) throws Exception {
        try {
            return load.call();
        } catch (AssertionError failed) {
            String log = read("error.log");
            throw new AssertionError(
                    failed.getMessage() + "\nnginx error.log (last 4000 chars):\n"
                            + log.substring(Math.max(0, log.length() - 4000)),
                    failed);
        }
    }

    /** Waits for nginx's access log of {@code /ids/} to hold the run's requests, then checks each id came once. */
    private static void assertEachIdLoggedOnce(String run, int ids) throws Exception {
        // nginx logs a request after it sent the response: the last lines may come after the client read them.
        InteropLoad.await(() -> lines(run).size() >= ids, "nginx to log " + ids + " requests of " + run);
        int[] seen = new int[ids];
        for (String line : lines(run)) {
            seen[Integer.parseInt(line.substring("/ids/".length(), line.indexOf(' ')))]++;
        }
        for (int id = 0; id < ids; id++) {
            assertEquals(1, seen[id], "times nginx served request " + id + " of " + run);
        }
    }

    private static List<String> lines(String run) {
        return read("ids.log").lines().filter(line -> line.endsWith(" " + run)).toList();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = Protocol.class,
            names = {"H2C"})
    void oneConnectionNeverCarriesMoreStreamsThanNginxAllows(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder().maxConnectionsPerDestination(1));
        String run = protocol + "-" + RUNS.incrementAndGet();
        int answered = withNginxsLog(() ->
                InteropLoad.run(client, 64, 4, id -> HttpRequest.get(uri(protocol, "/ids/" + id + "?run=" + run))));
        assertEquals(256, answered);
        assertEachIdLoggedOnce(run, 256);
        String log = read("error.log");
        assertFalse(log.contains("concurrent streams exceeded"), log);
        assertTrue(stats().maxOpen() <= 1, stats().toString());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void connectionsThatNginxClosesWhenIdleAreReplaced(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        int rounds = 3;
        for (int round = 0; round < rounds; round++) {
            assertEquals(
                    "Hello from nginx",
                    client.send(HttpRequest.get(churnUri(protocol, "/hello"))).asString());
            InteropLoad.await(
                    () -> stats().open() == 0 && stats().connections() == 0,
                    "nginx to close the idle connection after " + CHURN_IDLE_MILLIS + " ms");
        }
        assertEquals(rounds, stats().opened(), client.toString());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void followsNginxsRedirects(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        HttpResponse followed = client.send(HttpRequest.get(uri(protocol, "/redirect-chain")));
        assertEquals(200, followed.status());
        assertEquals("Hello from nginx", followed.asString());
        assertEquals("/hello", followed.request().uri().getPath());

        HttpRequest post = HttpRequest.newBuilder(uri(protocol, "/see-other"))
                .POST(RequestBody.of("dropped"))
                .build();
        assertEquals("GET", client.send(post).asString());

        try (HttpResponse asIs = client.send(HttpRequest.newBuilder(uri(protocol, "/redirect"))
                .followRedirects(false)
                .build())) {
            assertEquals(302, asIs.status());
            assertEquals(uri(protocol, "/hello"), asIs.headers().get("Location").orElseThrow());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void requestTimeoutFailsTheExchangeAndThePoolGoesOn(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder());
        HttpRequest slow = HttpRequest.newBuilder(uri(protocol, "/slow"))
                .timeout(Duration.ofMillis(300))
                .build();
        SocketTimeoutException timeout = assertThrows(SocketTimeoutException.class, () -> client.send(slow));
        assertTrue(timeout.getMessage().contains("timed out"), timeout.getMessage());
        assertEquals(
                "Hello from nginx",
                client.send(HttpRequest.get(uri(protocol, "/hello"))).asString());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void idleTimeoutFailsAnExchangeNginxNeverAnswers(Protocol protocol, ByteBufferPool pool) throws Exception {
        client(pool, protocol, HttpClient.builder().idleTimeout(Duration.ofMillis(300)));
        SocketTimeoutException timeout =
                assertThrows(SocketTimeoutException.class, () -> client.send(HttpRequest.get(uri(protocol, "/slow"))));
        assertTrue(timeout.getMessage().contains("idle"), timeout.getMessage());
    }
}
