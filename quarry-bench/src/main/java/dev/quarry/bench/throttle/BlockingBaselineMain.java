package dev.quarry.bench.throttle;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.quarry.core.throttle.TokenBucket;
import dev.quarry.server.handlers.ThrottleLimits;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The baseline of the throttle scenario: the pre-Servlet-3.0 download server of "Tenfold increase in server throughput
 * with Servlet 3.0 asynchronous processing", thread per request. The JDK's
 * {@code com.sun.net.httpserver} with a fixed pool of {@code --threads} platform threads runs one blocking loop per
 * download: take one token's worth of the request's bucket, waiting for it (the thread sleeps, held), write 20 KiB,
 * repeat. Requests beyond the pool wait in its queue, which is what the article measured (about 9 s to the first byte
 * with 100 clients and 10 threads). The bucket is Quarry's {@link TokenBucket} so that the two servers pace bytes
 * alike; only the threading differs.
 *
 * <pre>
 * java -cp quarry-bench.jar dev.quarry.bench.throttle.BlockingBaselineMain --dir DIR [--port 8081]
 *     [--host 127.0.0.1] [--request-rate 20KiB/s] [--threads 10] [--token 20KiB]
 * </pre>
 */
public final class BlockingBaselineMain {
    private static final Set<String> OPTIONS = Set.of("dir", "port", "host", "request-rate", "threads", "token");

    private BlockingBaselineMain() {}

    /**
     * @param args see the class comment
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        Args options = Args.parse(args, OPTIONS);
        Map<String, byte[]> files = new HashMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of(options.get("dir", ".")))) {
            for (Path entry : entries) {
                if (Files.isRegularFile(entry)) {
                    files.put("/" + entry.getFileName(), Files.readAllBytes(entry));
                }
            }
        }
        long rate = ThrottleLimits.parseRate(options.get("request-rate", "20KiB/s"));
        int token = (int) ThrottleLimits.parseSize(options.get("token", "20KiB"));
        int threads = options.getInt("threads", 10);
        AtomicInteger names = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(
                threads,
                task -> Thread.ofPlatform()
                        .name("baseline-" + names.incrementAndGet())
                        .unstarted(task));
        HttpServer server = HttpServer.create(
                new InetSocketAddress(options.get("host", "127.0.0.1"), options.getInt("port", 8081)), 1024);
        server.setExecutor(pool);
        server.createContext("/", exchange -> download(exchange, files, rate, token));
        server.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop(0);
            pool.shutdownNow();
            stopped.countDown();
        }));
        System.out.println("READY port=" + server.getAddress().getPort() + " files=" + files.keySet() + " rate="
                + ThrottleLimits.formatRate(rate) + " token=" + token + " threads=" + threads);
        System.out.flush();
        stopped.await();
    }

    private static void download(HttpExchange exchange, Map<String, byte[]> files, long rate, int token)
            throws IOException {
        try (exchange) {
            byte[] body = files.get(exchange.getRequestURI().getPath());
            if (body == null) {
                byte[] missing = "404 Not Found\n".getBytes(StandardCharsets.US_ASCII);
                exchange.sendResponseHeaders(404, missing.length);
                exchange.getResponseBody().write(missing);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            OutputStream out = exchange.getResponseBody();
            // The article's per-request bucket: one 20 KiB token per `token / rate` seconds, starting empty.
            TokenBucket bucket = rate == 0
                    ? TokenBucket.unlimited()
                    : TokenBucket.builder()
                            .rate(rate)
                            .capacity(2L * token)
                            .empty()
                            .build();
            for (int offset = 0; offset < body.length; offset += token) {
                int n = Math.min(token, body.length - offset);
                // takeBlocking(): the thread waits for the tokens, and is held meanwhile.
                long until = System.nanoTime() + bucket.reserve(n);
                for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
                    LockSupport.parkNanos(left);
                }
                out.write(body, offset, n);
                out.flush();
            }
        }
    }
}
