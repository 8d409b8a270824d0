package dev.quarry.cli;

import dev.quarry.client.BadResponseException;
import dev.quarry.client.HttpClient;
import dev.quarry.client.HttpRequest;
import dev.quarry.client.HttpResponse;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLException;

/**
 * {@code quarry load URL}: a load generator on Quarry's client, so that any server can be measured with a Java tool
 * and the client itself can be measured. Closed loop by default (each of {@code -c} connections sends its next request
 * when the previous response was read, like wrk); with {@code --rate N}, open loop: requests start on a fixed
 * schedule whatever the server does, and each latency counts from when its request was due, not when it could be
 * sent, so that a stalled server shows in the percentiles (no coordinated omission).
 */
final class LoadCommand {
    static final String USAGE = """
            Usage: quarry load [options] URL

            Sends GET requests to URL for a while with Quarry's HTTP client, prints a progress line each
            second on standard error and a summary on standard output: requests per second, errors by
            kind, latency percentiles (p50 p90 p99 p99.9 max, from a histogram) and bytes read.

            Options:
              -c, --connections N     connections, and requests in flight in the closed loop (default 64)
              --http2                 speak HTTP/2: h2c by prior knowledge for http, h2 by ALPN for https
              -m, --streams N         with --http2, requests in flight per connection (default 1): the
                                      closed loop keeps N x C requests in flight
              -d, --duration D        how long to send (default 10s; also 500ms, 2m)
              --rate N                open loop: N requests per second in total, on a fixed schedule;
                                      latencies count from when each request was due
              --timeout D             fail a request that takes longer (default 10s)
              -H, --header 'N: V'     add a header field (repeatable)
              -k, --insecure          accept any server certificate
              --unix PATH             connect to a Unix-domain socket
              -h, --help              this help

            Without --http2, requests use HTTP/1.1 keep-alive, one in flight per connection.
            """;

    static final Set<String> OPTIONS =
            Set.of("connections", "duration", "rate", "timeout", "header", "unix", "streams");
    static final Set<String> FLAGS = Set.of("insecure", "http2");
    static final Map<String, String> SHORT =
            Map.of("-c", "--connections", "-d", "--duration", "-H", "--header", "-k", "--insecure", "-m", "--streams");

    private final HttpClient client;
    private final HttpRequest request;
    private final LatencyHistogram latencies = new LatencyHistogram();
    private final LongAdder completed = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder lastSecond = new LongAdder();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    private LoadCommand(HttpClient client, HttpRequest request) {
        this.client = client;
        this.request = request;
    }

    /** Turns the short options into the long ones. */
    static List<String> expandShortOptions(List<String> args) {
        List<String> expanded = new ArrayList<>();
        for (String arg : args) {
            expanded.add(SHORT.getOrDefault(arg, arg));
        }
        return expanded;
    }

    /** @return the exit status: 0 if at least one request succeeded, 1 if none did */
    static int run(Options options, PrintStream out, PrintStream err) throws IOException, InterruptedException {
        if (options.positional().size() != 1) {
            throw new Options.UsageException("give exactly one URL, e.g. quarry load http://localhost:8080/");
        }
        boolean http2 = options.flag("http2");
        if (!http2 && options.string("streams").isPresent()) {
            throw new Options.UsageException("-m/--streams needs --http2: an HTTP/1.1 connection carries one request");
        }
        int connections = options.integer("connections", 64, 1, 100_000);
        int streams = options.integer("streams", 1, 1, 10_000);
        int inFlight = connections * streams;
        Duration duration = options.duration("duration", Duration.ofSeconds(10));
        Duration timeout = options.duration("timeout", Duration.ofSeconds(10));
        int rate = options.integer("rate", 0, 0, 10_000_000);
        if (duration.isZero() || duration.isNegative()) {
            throw new Options.UsageException("--duration must be positive");
        }
        HttpRequest request = GetCommand.request(URI.create(options.positional().get(0)), options, timeout);
        HttpClient.Builder builder = HttpClient.builder()
                .name("quarry-load")
                .maxConnectionsPerDestination(connections)
                .maxQueuedRequestsPerDestination(Math.max(1024, inFlight * 64))
                .http2(http2)
                .maxStreamsPerConnection(streams)
                .contentDecoding(false)
                .maxRedirects(0);
        if (options.flag("insecure")) {
            builder.sslContext(GetCommand.trustingEverything()).verifyHostnames(false);
        }
        options.string("unix").ifPresent(path -> builder.unixDomainSocket(Path.of(path)));
        try (HttpClient client = builder.build()) {
            LoadCommand load = new LoadCommand(client, request);
            String over = connections + " connections" + (http2 ? " (HTTP/2, " + streams + " streams each)" : "");
            String shape = rate > 0 ? rate + " req/s scheduled over up to " + over : over + ", closed loop";
            err.println("quarry load: " + request.uri() + " for " + format(duration) + ", " + shape);
            long elapsed =
                    rate > 0 ? load.openLoop(rate, inFlight, duration, err) : load.closedLoop(inFlight, duration, err);
            load.summary(elapsed, out);
            return load.completed.sum() > 0 ? 0 : 1;
        }
    }

    // --- closed loop -------------------------------------------------------------------------------------------------

    private long closedLoop(int connections, Duration duration, PrintStream err) throws InterruptedException {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        try (ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < connections; i++) {
                workers.execute(() -> {
                    while (!stopping && System.nanoTime() < end) {
                        exchange(System.nanoTime());
                    }
                });
            }
            progress(start, end, err);
            stopping = true;
        }
        return System.nanoTime() - start;
    }

    // --- open loop ---------------------------------------------------------------------------------------------------

    private long openLoop(int rate, int connections, Duration duration, PrintStream err) throws InterruptedException {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        double interval = 1e9 / rate;
        // Requests in flight are bounded (queued ones included), so that a dead server cannot make the generator
        // run out of memory; one that finds no room counts as an error of its own.
        Semaphore inFlight = new Semaphore(Math.max(1024, connections * 64));
        try (ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
            Thread scheduler = Thread.ofVirtual().name("quarry-load-schedule").start(() -> {
                for (long i = 0; ; i++) {
                    long due = start + (long) (i * interval);
                    if (due >= end || stopping) {
                        return;
                    }
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    if (!inFlight.tryAcquire()) {
                        error("too many requests in flight");
                        continue;
                    }
                    workers.execute(() -> {
                        try {
                            exchange(due);
                        } finally {
                            inFlight.release();
                        }
                    });
                }
            });
            progress(start, end, err);
            stopping = true;
            scheduler.join();
        }
        return System.nanoTime() - start;
    }

    // --- one exchange ------------------------------------------------------------------------------------------------

    private void exchange(long due) {
        try (HttpResponse response = client.send(request)) {
            long read = 0;
            byte[] buffer = new byte[16 * 1024];
            try (InputStream body = response.body()) {
                int n;
                while ((n = body.read(buffer)) >= 0) {
                    read += n;
                }
            }
            latencies.record((System.nanoTime() - due) / 1000);
            bytes.add(read);
            completed.increment();
            lastSecond.increment();
            statuses.computeIfAbsent(response.status() / 100, k -> new LongAdder())
                    .increment();
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } catch (Exception x) {
            if (!stopping) {
                error(kind(x));
            }
        }
    }

    private void error(String kind) {
        errors.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    /** What went wrong, in a few words, so that errors of one kind are counted together. */
    static String kind(Throwable x) {
        if (x instanceof SocketTimeoutException) {
            return "timeout";
        }
        if (x instanceof ConnectException) {
            return "connect";
        }
        if (x instanceof BadResponseException) {
            return "bad response";
        }
        if (x instanceof SSLException) {
            return "tls";
        }
        if (x instanceof EOFException) {
            return "closed by the server";
        }
        if (x instanceof RejectedExecutionException) {
            return "client queue full";
        }
        if (x instanceof IOException && x.getMessage() != null) {
            String message = x.getMessage().toLowerCase(Locale.ROOT);
            if (message.contains("reset")) {
                return "reset";
            }
            if (message.contains("closed") || message.contains("broken pipe")) {
                return "closed by the server";
            }
        }
        return x.getClass().getSimpleName();
    }

    // --- reporting ---------------------------------------------------------------------------------------------------

    private void progress(long start, long end, PrintStream err) throws InterruptedException {
        long second = 1;
        while (true) {
            long now = System.nanoTime();
            long next = Math.min(end, start + TimeUnit.SECONDS.toNanos(second));
            if (next > now) {
                TimeUnit.NANOSECONDS.sleep(next - now);
            }
            if (next >= end) {
                return;
            }
            err.printf(
                    Locale.ROOT,
                    "  %3ds  %,10d req/s  %,d errors  p99 %s%n",
                    second,
                    lastSecond.sumThenReset(),
                    errorCount(),
                    micros(latencies.percentile(99)));
            second++;
        }
    }

    private long errorCount() {
        return errors.values().stream().mapToLong(LongAdder::sum).sum();
    }

    private void summary(long elapsedNanos, PrintStream out) {
        double seconds = elapsedNanos / 1e9;
        long count = completed.sum();
        out.printf(Locale.ROOT, "%n%s%n", request.uri());
        out.printf(Locale.ROOT, "  requests     %,d in %.2f s: %,.0f req/s%n", count, seconds, count / seconds);
        out.printf(
                Locale.ROOT, "  bytes read   %,d (%,.1f MB/s of content)%n", bytes.sum(), bytes.sum() / seconds / 1e6);
        StringBuilder classes = new StringBuilder();
        statuses.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> classes.append(e.getKey())
                        .append("xx ")
                        .append(String.format(Locale.ROOT, "%,d", e.getValue().sum()))
                        .append("  "));
        out.println("  responses    "
                + (classes.isEmpty() ? "none" : classes.toString().strip()));
        out.printf(
                Locale.ROOT,
                "  latency      p50 %s  p90 %s  p99 %s  p99.9 %s  max %s%n",
                micros(latencies.percentile(50)),
                micros(latencies.percentile(90)),
                micros(latencies.percentile(99)),
                micros(latencies.percentile(99.9)),
                micros(latencies.max()));
        if (errors.isEmpty()) {
            out.println("  errors       none");
        } else {
            errors.entrySet().stream()
                    .sorted(Map.Entry.comparingByKey())
                    .forEach(e -> out.printf(
                            Locale.ROOT, "  errors       %,d %s%n", e.getValue().sum(), e.getKey()));
        }
    }

    static String micros(long micros) {
        if (micros < 1000) {
            return micros + " µs";
        }
        if (micros < 1_000_000) {
            return String.format(Locale.ROOT, "%.2f ms", micros / 1000.0);
        }
        return String.format(Locale.ROOT, "%.2f s", micros / 1e6);
    }

    private static String format(Duration duration) {
        return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
    }
}
