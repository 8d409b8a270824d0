package dev.quarry.bench.peers;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The closed loop every load generator runs, whatever the client: {@code connections x streams} requests are always in
 * flight, each sending the next as soon as its response was read, for a warm-up and then a measured window. The
 * measured window's figures (responses, errors, and the process's CPU time from {@code /proc/self/stat} and allocated
 * bytes) are differences between a snapshot at its start and one at its end, so that neither the JVM's start, the
 * JIT's first compilations, the warm-up nor the shutdown count.
 *
 * <p>The counters are {@link LongAdder}s: every completion thread of the client writes them.
 */
final class ClosedLoop {
    private final LoadClient client;
    private final LoadOptions options;
    private final LongAdder ok = new LongAdder();
    private final LongAdder non2xx = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();
    private final AtomicInteger running = new AtomicInteger();
    private volatile boolean stopping;

    ClosedLoop(LoadClient client, LoadOptions options) {
        this.client = client;
        this.options = options;
    }

    /** The counters and the process's resources at one instant. */
    record Snapshot(
            long nanos,
            long ok,
            long non2xx,
            long errors,
            long cpuTicks,
            long cpuNanos,
            long allocatedBytes,
            long readCalls,
            long writeCalls) {}

    /** What the measured window saw: the difference of two snapshots. */
    record Result(LoadOptions options, Snapshot start, Snapshot end, Throwable firstError) {
        double seconds() {
            return (end.nanos - start.nanos) / 1e9;
        }

        long requests() {
            return end.ok - start.ok;
        }

        /** @return the line the scripts parse: {@code QUARRY_LOAD name=value ...} */
        String line() {
            long requests = requests();
            return String.format(
                    java.util.Locale.ROOT,
                    "QUARRY_LOAD client=%s protocol=%s mode=%s connections=%d streams=%d in_flight=%d seconds=%.3f"
                            + " requests=%d non2xx=%d errors=%d rps=%.0f cpu_ticks=%d cpu_us_per_req=%.2f"
                            + " alloc_bytes_per_req=%d reads_per_req=%.2f writes_per_req=%.2f",
                    options.client().id(),
                    options.protocol(),
                    options.blocking() ? "blocking" : "async",
                    options.connections(),
                    options.streams(),
                    options.inFlight(),
                    seconds(),
                    requests,
                    end.non2xx - start.non2xx,
                    end.errors - start.errors,
                    requests / seconds(),
                    end.cpuTicks - start.cpuTicks,
                    requests > 0 ? (end.cpuNanos - start.cpuNanos) / 1e3 / requests : 0.0,
                    requests > 0 && start.allocatedBytes >= 0
                            ? (end.allocatedBytes - start.allocatedBytes) / requests
                            : -1,
                    perRequest(end.readCalls - start.readCalls, requests),
                    perRequest(end.writeCalls - start.writeCalls, requests));
        }

        private static double perRequest(long count, long requests) {
            return requests > 0 && count >= 0 ? (double) count / requests : -1;
        }
    }

    /**
     * Runs the loop: the warm-up, the measured window (announced on standard output by a {@code QUARRY_LOAD_MEASURING}
     * line when it starts), then waits (at most 10 s) for the requests in flight to end.
     *
     * @return the measured window's figures
     * @throws InterruptedException if interrupted meanwhile
     */
    Result run() throws InterruptedException {
        for (int i = 0; i < options.inFlight(); i++) {
            running.incrementAndGet();
            if (options.blocking()) {
                Thread.ofVirtual().name("load-", i).start(this::sendUntilStopped);
            } else {
                sendNext();
            }
        }
        sleep(options.warmup());
        Snapshot start = snapshot();
        System.out.println("QUARRY_LOAD_MEASURING " + options.duration().toSeconds() + "s");
        System.out.flush();
        sleep(options.duration());
        Snapshot end = snapshot();
        stopping = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (running.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        if (running.get() > 0) {
            // A client that stalls shows here: say so, with what it knows, rather than end as if all went well.
            System.err.println(
                    "load: " + running.get() + " requests still in flight 10 s after the end: " + client.state());
        }
        return new Result(options, start, end, firstError.get());
    }

    private void sendUntilStopped() {
        try {
            while (!stopping) {
                try {
                    record(client.sendAndWait(), null);
                } catch (Exception x) {
                    record(0, x);
                    pauseAfterFailure();
                }
            }
        } finally {
            running.decrementAndGet();
        }
    }

    private void sendNext() {
        try {
            client.send(this::completed);
        } catch (RuntimeException x) {
            // Off this stack: a client that fails at once would otherwise recurse.
            Thread.ofVirtual().start(() -> completed(0, x));
        }
    }

    private void completed(int status, Throwable failure) {
        record(status, failure);
        if (stopping) {
            running.decrementAndGet();
        } else if (failure != null) {
            Thread.ofVirtual().start(() -> {
                pauseAfterFailure();
                sendNext();
            });
        } else {
            sendNext();
        }
    }

    private void record(int status, Throwable failure) {
        if (failure != null) {
            errors.increment();
            firstError.compareAndSet(null, failure);
        } else if (status >= 200 && status < 300) {
            ok.increment();
        } else {
            non2xx.increment();
        }
    }

    /** A failing server (refused connections) would otherwise turn the loop into a busy spin. */
    private static void pauseAfterFailure() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(Duration duration) throws InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private Snapshot snapshot() {
        long[] io = ioCalls();
        return new Snapshot(
                System.nanoTime(),
                ok.sum(),
                non2xx.sum(),
                errors.sum(),
                cpuTicks(),
                cpuNanos(),
                allocatedBytes(),
                io[0],
                io[1]);
    }

    /** User + system CPU of this process in clock ticks, as the scripts read it for the servers (stat(5) 14 and 15). */
    static long cpuTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // The command name may contain spaces: the fields after it start past its closing parenthesis.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException x) {
            return -1;
        }
    }

    /**
     * The read-like and write-like system calls of this process so far ({@code syscr} and {@code syscw} of
     * {@code /proc/self/io}: read, readv, recv... and write, writev, send...), or -1 each when it cannot be read.
     */
    static long[] ioCalls() {
        long reads = -1;
        long writes = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
                if (line.startsWith("syscr: ")) {
                    reads = Long.parseLong(line.substring(7).trim());
                } else if (line.startsWith("syscw: ")) {
                    writes = Long.parseLong(line.substring(7).trim());
                }
            }
        } catch (IOException | RuntimeException x) {
            // Not Linux, or /proc/self/io not readable: the line says -1.
        }
        return new long[] {reads, writes};
    }

    /** The same in nanoseconds, finer than the ticks. */
    private static long cpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** Bytes allocated on the heap by every thread since the JVM started (carriers include their virtual threads). */
    private static long allocatedBytes() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
                && threads.isThreadAllocatedMemorySupported()
                && threads.isThreadAllocatedMemoryEnabled()) {
            return threads.getTotalThreadAllocatedBytes();
        }
        return -1;
    }
}
