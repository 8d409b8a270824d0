package dev.quarry.bench.throttle;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * The load client of the throttle scenario, one mode per run:
 *
 * <ul>
 *   <li>{@code downloads}: {@code --clients} connections, all opened first, then all send one GET at once; each
 *       measures the time to the first response byte and to the last body byte. Prints one {@code DOWNLOAD} line per
 *       client and a {@code SUMMARY} line with percentiles and the fraction of downloads that took
 *       {@code --expect-seconds} ±5 % and delivered {@code --expect-bytes}.
 *   <li>{@code sustain}: {@code --clients} clients download {@code --path} again and again for {@code --warmup-seconds}
 *       plus {@code --seconds}; prints {@code SUSTAIN} with the body bytes per second received during the measured
 *       seconds (the global limit's experiment).
 *   <li>{@code evil}: {@code --clients} connections with a tiny receive buffer send one GET and never read (the
 *       throttling article's Dr. Evil); after {@code --hold-seconds} each is drained briefly to see whether the server
 *       closed it; prints {@code EVIL opened=N closed-by-server=K still-open=M}.
 * </ul>
 *
 * <pre>
 * java -cp quarry-bench.jar dev.quarry.bench.throttle.ThrottleLoadClient MODE --port N [--host 127.0.0.1]
 *     [--path /download.bin] [--clients 100] [--expect-bytes N] [--expect-seconds S] [--seconds 30]
 *     [--warmup-seconds 3] [--hold-seconds 20] [--receive-buffer 4096] [--timeout-seconds 300]
 * </pre>
 *
 * Platform threads, one per client; every socket operation has a timeout, and the whole run a deadline.
 */
public final class ThrottleLoadClient {
    private static final Set<String> OPTIONS = Set.of(
            "port",
            "host",
            "path",
            "clients",
            "expect-bytes",
            "expect-seconds",
            "seconds",
            "warmup-seconds",
            "hold-seconds",
            "receive-buffer",
            "timeout-seconds");

    private final InetSocketAddress address;
    private final String path;
    private final int clients;
    private final int timeoutMillis;

    private ThrottleLoadClient(Args options) {
        this.address = new InetSocketAddress(options.get("host", "127.0.0.1"), options.getInt("port", 8080));
        this.path = options.get("path", "/download.bin");
        this.clients = options.getInt("clients", 100);
        this.timeoutMillis = (int) TimeUnit.SECONDS.toMillis(options.getInt("timeout-seconds", 300));
    }

    /**
     * @param args the mode, then options; see the class comment
     * @throws Exception if the run cannot complete
     */
    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: ThrottleLoadClient downloads|sustain|evil --port N ...");
        }
        Args options = Args.parse(Arrays.copyOfRange(args, 1, args.length), OPTIONS);
        ThrottleLoadClient client = new ThrottleLoadClient(options);
        switch (args[0]) {
            case "downloads" ->
                client.downloads(
                        Long.parseLong(options.get("expect-bytes", "-1")), options.getDouble("expect-seconds", 0));
            case "sustain" -> client.sustain(options.getInt("warmup-seconds", 3), options.getInt("seconds", 30));
            case "evil" -> client.evil(options.getInt("hold-seconds", 20), options.getInt("receive-buffer", 4096));
            default -> throw new IllegalArgumentException("unknown mode '" + args[0] + "': downloads|sustain|evil");
        }
        System.out.flush();
        System.exit(0);
    }

    private byte[] request(boolean close) {
        return ("GET " + path + " HTTP/1.1\r\nHost: " + address.getHostString() + "\r\n"
                        + (close ? "Connection: close\r\n" : "") + "\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    private Socket connect(int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer); // before connect, so that the window stays small
        }
        socket.setSoTimeout(timeoutMillis);
        socket.connect(address, 10_000);
        return socket;
    }

    // --- downloads
    // ----------------------------------------------------------------------------------------------------

    private record Result(int status, long bytes, long firstByteNanos, long totalNanos, String error) {}

    private void downloads(long expectBytes, double expectSeconds) throws Exception {
        Result[] results = new Result[clients];
        CountDownLatch connected = new CountDownLatch(clients);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(clients);
        byte[] request = request(true);
        for (int i = 0; i < clients; i++) {
            int index = i;
            Thread.ofPlatform().name("download-" + i).daemon(true).start(() -> {
                try (Socket socket = connect(0)) {
                    connected.countDown();
                    go.await();
                    results[index] = download(socket, request, bytes -> {});
                } catch (Exception x) {
                    connected.countDown();
                    results[index] = new Result(0, 0, 0, 0, x.toString().replace(' ', '_'));
                } finally {
                    done.countDown();
                }
            });
        }
        if (!connected.await(60, TimeUnit.SECONDS)) {
            System.out.println("WARN not all clients connected within 60 s");
        }
        long start = System.nanoTime();
        go.countDown();
        if (!done.await(timeoutMillis + 10_000L, TimeUnit.MILLISECONDS)) {
            System.out.println("WARN downloads still running after the timeout");
        }
        double wall = (System.nanoTime() - start) / 1e9;
        List<Long> firstBytes = new ArrayList<>();
        List<Long> totals = new ArrayList<>();
        int ok = 0;
        int within = 0;
        for (int i = 0; i < clients; i++) {
            Result r = results[i];
            if (r == null) {
                System.out.println("DOWNLOAD " + i + " unfinished");
                continue;
            }
            System.out.printf(
                    Locale.ROOT,
                    "DOWNLOAD %d status=%d bytes=%d ttfb-ms=%.1f total-ms=%.1f%s%n",
                    i,
                    r.status,
                    r.bytes,
                    r.firstByteNanos / 1e6,
                    r.totalNanos / 1e6,
                    r.error == null ? "" : " error=" + r.error);
            boolean good = r.error == null && r.status == 200 && (expectBytes < 0 || r.bytes == expectBytes);
            if (!good) {
                continue;
            }
            ok++;
            firstBytes.add(r.firstByteNanos);
            totals.add(r.totalNanos);
            double seconds = r.totalNanos / 1e9;
            if (expectSeconds > 0 && Math.abs(seconds - expectSeconds) <= 0.05 * expectSeconds) {
                within++;
            }
        }
        firstBytes.sort(null);
        totals.sort(null);
        System.out.printf(
                Locale.ROOT,
                "SUMMARY clients=%d ok=%d failed=%d ttfb-p50-ms=%.1f ttfb-p99-ms=%.1f ttfb-max-ms=%.1f"
                        + " duration-min-s=%.3f duration-p50-s=%.3f duration-p99-s=%.3f duration-max-s=%.3f"
                        + " within-5pct=%.2f wall-s=%.1f%n",
                clients,
                ok,
                clients - ok,
                percentile(firstBytes, 50) / 1e6,
                percentile(firstBytes, 99) / 1e6,
                percentile(firstBytes, 100) / 1e6,
                percentile(totals, 0) / 1e9,
                percentile(totals, 50) / 1e9,
                percentile(totals, 99) / 1e9,
                percentile(totals, 100) / 1e9,
                clients == 0 ? 0.0 : (double) within / clients,
                wall);
    }

    /** Nearest-rank percentile of sorted values; 0 gives the minimum; NaN-free: 0 for no values. */
    private static long percentile(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.clamp(rank - 1, 0, sorted.size() - 1));
    }

    /** One GET on a connected socket: times the first byte and the end of the body; hands body byte counts on. */
    private static Result download(Socket socket, byte[] request, LongConsumer bodyBytes) throws IOException {
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[64 * 1024];
        long start = System.nanoTime();
        socket.getOutputStream().write(request);
        int n = in.read(buffer);
        long firstByte = System.nanoTime() - start;
        if (n < 0) {
            return new Result(0, 0, firstByte, System.nanoTime() - start, "no-response");
        }
        int filled = n;
        int headEnd;
        while ((headEnd = headEnd(buffer, filled)) < 0) {
            if (filled == buffer.length) {
                return new Result(0, 0, firstByte, System.nanoTime() - start, "head-too-large");
            }
            n = in.read(buffer, filled, buffer.length - filled);
            if (n < 0) {
                return new Result(0, 0, firstByte, System.nanoTime() - start, "head-cut");
            }
            filled += n;
        }
        String head = new String(buffer, 0, headEnd, StandardCharsets.ISO_8859_1);
        int status = Integer.parseInt(head.substring(9, 12));
        long length = contentLength(head);
        long body = filled - headEnd;
        bodyBytes.accept(body);
        while (length < 0 || body < length) {
            n = in.read(buffer);
            if (n < 0) {
                break;
            }
            body += n;
            bodyBytes.accept(n);
        }
        String error = length >= 0 && body < length ? "body-cut-at-" + body : null;
        return new Result(status, body, firstByte, System.nanoTime() - start, error);
    }

    private static int headEnd(byte[] buffer, int filled) {
        for (int i = 3; i < filled; i++) {
            if (buffer[i] == '\n' && buffer[i - 1] == '\r' && buffer[i - 2] == '\n' && buffer[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    private static long contentLength(String head) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-length")) {
                return Long.parseLong(line.substring(colon + 1).trim());
            }
        }
        return -1; // the scenario's servers always send a length; otherwise read to the end
    }

    // --- sustain
    // ------------------------------------------------------------------------------------------------------

    private void sustain(int warmupSeconds, int seconds) throws Exception {
        LongAdder received = new LongAdder();
        LongAdder completed = new LongAdder();
        LongAdder failed = new LongAdder();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmupSeconds + seconds + 1L);
        byte[] request = request(true);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            threads.add(Thread.ofPlatform().name("sustain-" + i).daemon(true).start(() -> {
                while (System.nanoTime() - end < 0) {
                    try (Socket socket = connect(0)) {
                        Result r = download(socket, request, received::add);
                        (r.error == null && r.status == 200 ? completed : failed).increment();
                    } catch (IOException x) {
                        failed.increment();
                    }
                }
            }));
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
        long bytes0 = received.sum();
        long t0 = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        long bytes1 = received.sum();
        double elapsed = (System.nanoTime() - t0) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "SUSTAIN clients=%d bytes=%d seconds=%.3f rate-bytes-per-s=%.0f downloads=%d failed=%d%n",
                clients,
                bytes1 - bytes0,
                elapsed,
                (bytes1 - bytes0) / elapsed,
                completed.sum(),
                failed.sum());
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()) + 5_000));
        }
    }

    // --- evil
    // ---------------------------------------------------------------------------------------------------------

    private void evil(int holdSeconds, int receiveBuffer) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        byte[] request = request(false);
        int failed = 0;
        for (int i = 0; i < clients; i++) {
            try {
                Socket socket = connect(receiveBuffer);
                socket.getOutputStream().write(request);
                sockets.add(socket);
            } catch (IOException x) {
                failed++;
            }
        }
        System.out.println("EVIL-READY opened=" + sockets.size() + " failed=" + failed);
        System.out.flush();
        Thread.sleep(TimeUnit.SECONDS.toMillis(holdSeconds));
        // Whatever the server managed to push sits in the kernel buffers: read it, then see how each stream ends.
        // All at once, each for at most a few seconds, so that a server still sending cannot stretch the run.
        LongAdder closedCount = new LongAdder();
        LongAdder drainedBytes = new LongAdder();
        List<Thread> drains = new ArrayList<>();
        for (Socket socket : sockets) {
            drains.add(Thread.ofPlatform().daemon(true).start(() -> {
                if (drain(socket, drainedBytes)) {
                    closedCount.increment();
                }
            }));
        }
        for (Thread drain : drains) {
            drain.join(15_000);
        }
        long closed = closedCount.sum();
        long open = sockets.size() - closed;
        long drained = drainedBytes.sum();
        System.out.println("EVIL opened=" + sockets.size() + " closed-by-server=" + closed + " still-open=" + open
                + " drained-bytes=" + drained);
    }

    /** Reads a socket for at most 3 s; true if the server had closed it (end of stream or reset). */
    private static boolean drain(Socket socket, LongAdder drained) {
        byte[] buffer = new byte[64 * 1024];
        try (socket) {
            socket.setSoTimeout(1_000);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() - deadline < 0) {
                int n = socket.getInputStream().read(buffer);
                if (n < 0) {
                    return true;
                }
                drained.add(n);
            }
            return false;
        } catch (SocketTimeoutException x) {
            return false;
        } catch (IOException x) {
            return true; // reset by the server
        }
    }
}
