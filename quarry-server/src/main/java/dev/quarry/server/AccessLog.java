package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.Dumpable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.LifeCycle;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An access log: one line per request, written to a file or a stream by a thread of its own, so that the threads that
 * serve requests (selectors among them) never touch the output.
 *
 * <pre>{@code
 * Server server = Server.builder()
 *         .http(8080)
 *         .accessLog(AccessLog.toFile(Path.of("access.log")))              // NCSA combined
 *         // .accessLog(AccessLog.toStandardOutput(AccessLog.Format.JSON))  // or JSON lines
 *         .route("GET /hello", (req, res) -> res.send("hello\n"))
 *         .build()
 *         .start();
 * }</pre>
 *
 * <p>Given to {@link ServerBuilder#accessLog(AccessLog)}, it runs as a non-blocking {@link Filter} outermost, around
 * every filter and route. It wraps the response to count the body bytes written and the callback to learn how the
 * exchange ended, and on completion it captures a small immutable entry — references to strings the request holds, a
 * few numbers — and offers it to a bounded lock-free queue, without waiting. When the queue is full the line is
 * dropped and counted ({@link #dropped()}), never waited for. One daemon thread, {@code quarry-access-log}, drains the
 * queue, formats the lines (see {@link Format}) into a buffer, and writes and flushes the buffer whenever the queue is
 * empty, so that a burst becomes one write and a quiet server's log is up to date.
 *
 * <p>The server starts the log before its connectors and stops it after them: {@link #stop()} writes every line queued,
 * flushes, and closes a file the log opened (a stream given to it is flushed, not closed). A log belongs to one server.
 *
 * <p>What is logged of a request: the body bytes written through the response (a failed handler's error body, written
 * by the server, is not counted); the duration from the parsed request head to the handler's completion; for a
 * handler that failed before committing, the status the server answers (an {@code HttpException}'s, else 500); for one
 * that failed after committing, the status sent and the abort.
 *
 * <p>Thread-safety: {@link #start()} and {@link #stop()} from one thread at a time; everything else from any thread.
 * Cost per request, on the thread that completes it: two small allocations (the wrapper, which is also the callback,
 * and the entry), two clock reads, one CAS and one volatile read; formatting and I/O happen on the writer thread. While
 * lines keep coming the writer naps a millisecond between batches instead of waiting to be woken, so a busy server's
 * requests never unpark it; only the first request after 10 ms of quiet does. A line reaches the output within about
 * a millisecond.
 */
public final class AccessLog implements LifeCycle, Dumpable {
    private static final System.Logger LOG = System.getLogger(AccessLog.class.getName());
    private static final VarHandle PARKED;
    private static final VarHandle WRITTEN;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PARKED = lookup.findVarHandle(AccessLog.class, "parked", boolean.class);
            WRITTEN = lookup.findVarHandle(AccessLog.class, "written", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /** The default capacity of the queue between the requests and the writer thread. */
    public static final int DEFAULT_QUEUE_CAPACITY = 16 * 1024;

    private static final int BUFFER_SIZE = 64 * 1024;
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    // The writer naps this long between batches, and sleeps until woken after this many naps without a line.
    private static final long NAP_NANOS = 1_000_000;
    private static final int NAPS_BEFORE_SLEEP = 10;

    /** The format of the lines. */
    public enum Format {
        /**
         * NCSA combined with three fields appended, one line per request:
         * {@code %h - - [%t] "%r" %>s %b "%{Referer}i" "%{User-Agent}i" %D "%{X-Request-Id}o" %X}, e.g.
         *
         * <pre>{@code
         * 127.0.0.1 - - [31/Jan/2026:14:03:07 +0100] "GET /hello?x=1 HTTP/1.1" 200 6 "-" "curl/8.5.0" 412 "6f1c0a93d2e4b857" -
         * }</pre>
         *
         * The client's IP address (a Unix-socket client is {@code unix}); the time the request arrived, in the log's
         * zone; the request line with the protocol ({@code HTTP/1.1}, {@code HTTP/2.0}); the status; the body bytes
         * ({@code -} for none); Referer and User-Agent ({@code -} when absent); the duration in microseconds; the
         * response's {@code X-Request-Id} ({@code -} when absent); and {@code X} if the response was aborted after it
         * was committed, {@code -} otherwise. Quotes and backslashes are escaped with a backslash, and control
         * characters, DEL and non-ASCII characters as {@code \xhh} (beyond Latin-1, as a backslash-u escape): a
         * line is ASCII, and a hostile field cannot end it or forge another.
         */
        COMBINED,
        /**
         * JSON lines, one object per request, with the fields of {@link #COMBINED} by name:
         *
         * <pre>{@code
         * {"time":"2026-01-31T13:03:07.215Z","client":"127.0.0.1","method":"GET","target":"/hello?x=1",
         *  "protocol":"HTTP/1.1","status":200,"bytes":6,"duration_us":412,"referer":null,
         *  "user_agent":"curl/8.5.0","request_id":"6f1c0a93d2e4b857","aborted":false}
         * }</pre>
         *
         * (one line in the log). The time is UTC with milliseconds; absent fields are {@code null}; strings are escaped
         * as RFC 8259 says, with every control character, DEL and non-ASCII character as a backslash-u escape.
         */
        JSON
    }

    private final Format format;
    private final ZoneId zone;
    private final Optional<Path> file;
    private final Optional<OutputStream> stream;
    private final AccessLogQueue queue;
    private final LongAdder dropped = new LongAdder();
    private final ReentrantLock lock = new ReentrantLock();
    private final Filter filter = new LogFilter();
    private volatile boolean running;
    private volatile boolean stopping;
    private volatile Thread writer;

    @SuppressWarnings("unused") // through PARKED: the writer sleeps and wants an unpark
    private volatile boolean parked;

    @SuppressWarnings("unused") // through WRITTEN: written by the writer thread only
    private volatile long written;

    private AccessLog(Builder builder) {
        this.format = builder.format;
        this.zone = builder.zone;
        this.file = Optional.ofNullable(builder.file);
        this.stream = Optional.ofNullable(builder.stream);
        this.queue = new AccessLogQueue(builder.queueCapacity);
    }

    /**
     * @param file the log file, created if missing and appended to
     * @return an access log in {@link Format#COMBINED}
     */
    public static AccessLog toFile(Path file) {
        return toFile(file, Format.COMBINED);
    }

    /**
     * @param file the log file, created if missing and appended to; opened on start, closed on stop
     * @param format the format
     * @return an access log
     */
    public static AccessLog toFile(Path file, Format format) {
        return builder().file(file).format(format).build();
    }

    /**
     * @param out where to write; flushed, not closed, on stop
     * @param format the format
     * @return an access log
     */
    public static AccessLog toStream(OutputStream out, Format format) {
        return builder().stream(out).format(format).build();
    }

    /**
     * @param format the format
     * @return an access log to {@link System#out}
     */
    public static AccessLog toStandardOutput(Format format) {
        return toStream(System.out, format);
    }

    /** @return a builder: an output is required, the rest has defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the format */
    public Format format() {
        return format;
    }

    /** @return the capacity of the queue (a power of two) */
    public int queueCapacity() {
        return queue.capacity();
    }

    /** @return lines written to the output so far */
    public long written() {
        return (long) WRITTEN.getVolatile(this);
    }

    /**
     * @return lines lost: the queue was full, the log was not running, or the output failed (each failure is logged)
     */
    public long dropped() {
        return dropped.sum();
    }

    /** @return the lines waiting for the writer, a snapshot */
    public int queued() {
        return queue.size();
    }

    /** @return the filter that records the requests; the server installs it outermost */
    Filter filter() {
        return filter;
    }

    /**
     * Opens the output and starts the writer thread.
     *
     * @throws IOException if the file cannot be opened
     */
    @Override
    public void start() throws IOException {
        lock.lock();
        try {
            if (running) {
                return;
            }
            OutputStream out = file.isPresent()
                    ? Files.newOutputStream(
                            file.get(), StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)
                    : stream.orElseThrow();
            stopping = false;
            Sink sink = new Sink(out);
            Thread thread =
                    Thread.ofPlatform().daemon().name("quarry-access-log").unstarted(() -> drain(sink));
            writer = thread;
            running = true;
            thread.start();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops taking lines, writes every line queued, flushes, and closes the file (not a given stream). Waits at most
     * 10 s for the writer thread (an output that hangs is left to it, and logged).
     *
     * @throws InterruptedException if interrupted while waiting for the writer
     */
    @Override
    public void stop() throws InterruptedException {
        lock.lock();
        try {
            if (!running) {
                return;
            }
            running = false;
            stopping = true;
            Thread thread = writer;
            LockSupport.unpark(thread);
            if (!thread.join(STOP_TIMEOUT)) {
                LOG.log(Level.WARNING, "access log writer still busy after " + STOP_TIMEOUT + ": " + this);
                return;
            }
            // Offers that raced with the stop: never written.
            while (queue.poll() != null) {
                dropped.increment();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Called on the thread that completed an exchange: never waits. */
    void offer(AccessLogEntry entry) {
        if (!running || !queue.offer(entry)) {
            dropped.increment();
            return;
        }
        if ((boolean) PARKED.getVolatile(this) && PARKED.compareAndSet(this, true, false)) {
            LockSupport.unpark(writer);
        }
    }

    /**
     * The writer thread: drains the queue, writes, flushes when it is empty; then naps a millisecond at a time while
     * lines keep coming, and after 10 ms without one sleeps until an offer wakes it.
     */
    private void drain(Sink sink) {
        AccessLogFormatter formatter = new AccessLogFormatter(format, zone);
        StringBuilder line = new StringBuilder(512);
        try {
            int naps = 0;
            while (true) {
                AccessLogEntry entry;
                boolean drained = false;
                while ((entry = queue.poll()) != null) {
                    drained = true;
                    line.setLength(0);
                    try {
                        formatter.format(entry, line);
                    } catch (RuntimeException x) {
                        dropped.increment();
                        LOG.log(Level.WARNING, "cannot format access log entry " + entry, x);
                        continue;
                    }
                    sink.append(line);
                }
                sink.flush();
                if (stopping && queue.isEmpty()) {
                    return;
                }
                if (naps < NAPS_BEFORE_SLEEP) {
                    // Busy or recently busy: nap without asking to be woken, so that a loaded server's requests
                    // never pay for an unpark, and the next batch is a millisecond of lines.
                    naps = drained ? 0 : naps + 1;
                    LockSupport.parkNanos(this, NAP_NANOS);
                    continue;
                }
                naps = 0;
                // Quiet: sleep until an offer wakes us. Say so before the last look at the queue: an offer after
                // that look sees the flag and unparks.
                PARKED.setVolatile(this, true);
                if (queue.isEmpty() && !stopping) {
                    LockSupport.park(this);
                }
                PARKED.setVolatile(this, false);
            }
        } finally {
            sink.close(file.isPresent());
        }
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append(System.lineSeparator());
        Thread thread = writer;
        if (thread != null) {
            out.append(indent)
                    .append("+- ")
                    .append(thread.getName())
                    .append(' ')
                    .append(thread.getState().toString())
                    .append(System.lineSeparator());
        }
    }

    @Override
    public String toString() {
        return "AccessLog{"
                + file.map(Path::toString)
                        .orElse(stream.map(s -> s == System.out ? "stdout" : "stream")
                                .orElse("?"))
                + ", " + format + (running ? ", running" : "") + ", queued=" + queued() + "/" + queue.capacity()
                + ", written=" + written() + ", dropped=" + dropped() + "}";
    }

    /**
     * The writer's output: a buffer of whole lines in front of the stream. Lines are ASCII (the formatter escapes
     * everything else), so a char is a byte. Confined to the writer thread.
     */
    private final class Sink {
        private final OutputStream out;
        private final byte[] buffer = new byte[BUFFER_SIZE];
        private int count;
        private int lines;
        private boolean failing;

        Sink(OutputStream out) {
            this.out = out;
        }

        void append(StringBuilder line) {
            int length = line.length();
            if (count + length > buffer.length) {
                write();
            }
            if (length > buffer.length) {
                byte[] big = new byte[length];
                for (int i = 0; i < length; i++) {
                    big[i] = (byte) line.charAt(i);
                }
                try {
                    out.write(big);
                    WRITTEN.setVolatile(AccessLog.this, written() + 1);
                } catch (IOException x) {
                    failed(x, 1);
                }
                return;
            }
            for (int i = 0; i < length; i++) {
                buffer[count++] = (byte) line.charAt(i);
            }
            lines++;
        }

        /** Writes the buffered lines (the stream may buffer them further). */
        private void write() {
            if (count == 0) {
                return;
            }
            try {
                out.write(buffer, 0, count);
                WRITTEN.setVolatile(AccessLog.this, written() + lines);
                failing = false;
            } catch (IOException x) {
                failed(x, lines);
            } finally {
                count = 0;
                lines = 0;
            }
        }

        void flush() {
            if (count == 0) {
                return;
            }
            int flushed = lines;
            try {
                out.write(buffer, 0, count);
                out.flush();
                WRITTEN.setVolatile(AccessLog.this, written() + flushed);
                failing = false;
            } catch (IOException x) {
                failed(x, flushed);
            } finally {
                count = 0;
                lines = 0;
            }
        }

        private void failed(IOException x, int lost) {
            dropped.add(lost);
            if (!failing) { // once per run of failures, not once per line
                failing = true;
                LOG.log(Level.WARNING, "access log output failed, lines are dropped until it recovers: " + x);
            }
        }

        void close(boolean owned) {
            flush();
            try {
                if (owned) {
                    out.close();
                } else {
                    out.flush();
                }
            } catch (IOException x) {
                LOG.log(Level.WARNING, "closing the access log output: " + x);
            }
        }
    }

    /** The filter the server installs outermost: a counting response that is also the completion callback. */
    private final class LogFilter implements Filter {
        @Override
        public void filter(Request request, Response response, Callback callback, AsyncHandler next) {
            AccessLogResponse logged = new AccessLogResponse(AccessLog.this, request, response, callback);
            try {
                next.handle(request, logged, logged);
            } catch (Throwable x) {
                logged.failed(x);
            }
        }

        @Override
        public InvocationType invocationType() {
            return InvocationType.NON_BLOCKING;
        }

        @Override
        public String toString() {
            return "AccessLog[" + format + "]";
        }
    }

    /** Configures an {@link AccessLog}. Thread-safety: not thread-safe. */
    public static final class Builder {
        private Path file;
        private OutputStream stream;
        private Format format = Format.COMBINED;
        private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
        private ZoneId zone = ZoneId.systemDefault();

        private Builder() {}

        /**
         * @param file the log file, created if missing and appended to; replaces a stream
         * @return this
         */
        public Builder file(Path file) {
            this.file = Objects.requireNonNull(file, "file");
            this.stream = null;
            return this;
        }

        /**
         * @param out the stream to write to, flushed but not closed on stop; replaces a file
         * @return this
         */
        public Builder stream(OutputStream out) {
            this.stream = Objects.requireNonNull(out, "out");
            this.file = null;
            return this;
        }

        /**
         * @param format the format (default {@link Format#COMBINED})
         * @return this
         */
        public Builder format(Format format) {
            this.format = Objects.requireNonNull(format, "format");
            return this;
        }

        /**
         * @param capacity lines that may wait for the writer (default {@value AccessLog#DEFAULT_QUEUE_CAPACITY}, rounded up to
         *     a power of two); beyond, lines are dropped and counted
         * @return this
         */
        public Builder queueCapacity(int capacity) {
            if (capacity < 1 || capacity > 1 << 30) {
                throw new IllegalArgumentException("queueCapacity must be 1 to 2^30, was " + capacity);
            }
            this.queueCapacity = capacity;
            return this;
        }

        /**
         * @param zone the zone of {@link Format#COMBINED} times (default: the system's); JSON times are UTC
         * @return this
         */
        public Builder zone(ZoneId zone) {
            this.zone = Objects.requireNonNull(zone, "zone");
            return this;
        }

        /**
         * @return the access log, not started (the server starts it)
         * @throws IllegalStateException if no file or stream was given
         */
        public AccessLog build() {
            if (file == null && stream == null) {
                throw new IllegalStateException("no output: call file(path) or stream(out)");
            }
            return new AccessLog(this);
        }
    }
}
