package dev.quarry.bench.throttle;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Handlers;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import dev.quarry.server.Server;
import dev.quarry.server.handlers.Throttle;
import dev.quarry.server.handlers.ThrottleHandler;
import dev.quarry.server.handlers.ThrottleLimits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * Quarry's server in the throttle scenario until {@code ./quarry serve DIR --request-rate ...} exists: serves the files
 * of a directory (loaded in memory, like a cache in front of the disk: the article's "caching layer") behind a
 * {@link ThrottleHandler}, and {@code /big.bin}, an endless body for the never-reading clients, behind a second
 * throttle with only a global limit.
 *
 * <pre>
 * java -cp quarry-bench.jar dev.quarry.bench.throttle.ThrottleServerMain --dir DIR [--port 8080] [--host 127.0.0.1]
 *     [--request-rate 20KiB/s] [--client-rate 0] [--global-rate 0] [--chunk 16KiB] [--max-requests-per-client 0]
 *     [--threads 10] [--virtual-threads off] [--idle-timeout 30] [--bulk-rate 64MiB/s] [--bulk-size 1GiB]
 * </pre>
 *
 * Rates take the units of {@link ThrottleLimits#parseRate}; 0 is unlimited. Prints {@code READY port=N ...} once
 * listening, and runs until killed (TERM stops it gracefully).
 */
public final class ThrottleServerMain {
    private static final Set<String> OPTIONS = Set.of(
            "dir",
            "port",
            "host",
            "request-rate",
            "client-rate",
            "global-rate",
            "chunk",
            "max-requests-per-client",
            "threads",
            "virtual-threads",
            "idle-timeout",
            "bulk-rate",
            "bulk-size");
    private static final byte[] NOT_FOUND = "404 Not Found\n".getBytes(StandardCharsets.US_ASCII);

    private ThrottleServerMain() {}

    /**
     * @param args see the class comment
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        Args options = Args.parse(args, OPTIONS);
        Map<String, byte[]> files = load(Path.of(options.get("dir", ".")));
        ThrottleLimits limits = ThrottleLimits.builder()
                .requestRate(ThrottleLimits.parseRate(options.get("request-rate", "0")))
                .clientRate(ThrottleLimits.parseRate(options.get("client-rate", "0")))
                .globalRate(ThrottleLimits.parseRate(options.get("global-rate", "0")))
                .chunkSize((int) ThrottleLimits.parseSize(options.get("chunk", "16KiB")))
                .maxRequestsPerClient(options.getInt("max-requests-per-client", 0))
                .build();
        Throttle throttle = Throttle.of(limits);
        Throttle bulk = Throttle.of(ThrottleLimits.builder()
                .globalRate(ThrottleLimits.parseRate(options.get("bulk-rate", "64MiB/s")))
                .build());
        long bulkSize = ThrottleLimits.parseSize(options.get("bulk-size", "1GiB"));
        AsyncHandler filesHandler = new ThrottleHandler(throttle, fileHandler(files));
        AsyncHandler bulkHandler = new ThrottleHandler(bulk, endlessHandler(bulkSize));
        AsyncHandler root = AsyncHandler.nonBlocking((request, response, callback) -> Handlers.invoke(
                request.path().equals("/big.bin") ? bulkHandler : filesHandler, request, response, callback));

        int threads = options.getInt("threads", 10);
        String virtualThreads = options.get("virtual-threads", "off");
        Server server = Server.builder()
                .name("quarry-throttle")
                .http(options.get("host", "127.0.0.1"), options.getInt("port", 8080))
                .maxThreads(threads)
                .minThreads(Math.min(2, threads))
                .virtualThreads(virtualThreads.equals("on") || virtualThreads.equals("true"))
                .idleTimeout(Duration.ofSeconds(options.getInt("idle-timeout", 30)))
                .handler(root)
                .build()
                .start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            } finally {
                throttle.stop();
                bulk.stop();
                stopped.countDown();
            }
        }));
        System.out.println("READY port=" + server.port() + " files=" + files.keySet() + " " + limits + " threads="
                + threads + " virtualThreads=" + virtualThreads);
        System.out.flush();
        stopped.await();
    }

    private static Map<String, byte[]> load(Path dir) throws IOException {
        Map<String, byte[]> files = new HashMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                if (Files.isRegularFile(entry)) {
                    files.put("/" + entry.getFileName(), Files.readAllBytes(entry));
                }
            }
        }
        return files;
    }

    /** Sends a file from memory in one write: the throttle cuts it into chunks. */
    private static AsyncHandler fileHandler(Map<String, byte[]> files) {
        return AsyncHandler.nonBlocking((request, response, callback) -> {
            byte[] body = files.get(request.path());
            if (body == null) {
                response.status(404);
                response.write(true, ByteBuffer.wrap(NOT_FOUND), callback);
                return;
            }
            response.header("Content-Type", "application/octet-stream");
            response.write(true, ByteBuffer.wrap(body), callback);
        });
    }

    /** Sends {@code size} bytes made of one shared 1 MiB block, each write when the previous one completed. */
    private static AsyncHandler endlessHandler(long size) {
        byte[] block = new byte[1024 * 1024];
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) i;
        }
        return new AsyncHandler() {
            @Override
            public void handle(Request request, Response response, Callback callback) {
                response.header("Content-Type", "application/octet-stream");
                response.header("Content-Length", Long.toString(size));
                new BlockWriter(response, block, size, callback).iterate();
            }

            @Override
            public InvocationType invocationType() {
                return InvocationType.NON_BLOCKING;
            }
        };
    }

    private static final class BlockWriter extends IteratingCallback {
        private final Response response;
        private final byte[] block;
        private final Callback callback;
        private long left;

        BlockWriter(Response response, byte[] block, long size, Callback callback) {
            this.response = response;
            this.block = block;
            this.left = size;
            this.callback = callback;
        }

        @Override
        protected Action process() {
            if (left == 0) {
                return Action.SUCCEEDED;
            }
            int n = (int) Math.min(block.length, left);
            left -= n;
            response.write(left == 0, ByteBuffer.wrap(block, 0, n), this);
            return Action.SCHEDULED;
        }

        @Override
        protected void onCompleteSuccess() {
            callback.succeeded();
        }

        @Override
        protected void onCompleteFailure(Throwable cause) {
            callback.failed(cause);
        }

        @Override
        public InvocationType invocationType() {
            return InvocationType.NON_BLOCKING;
        }
    }
}
