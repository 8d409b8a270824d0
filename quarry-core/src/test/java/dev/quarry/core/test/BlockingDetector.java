package dev.quarry.core.test;

import dev.quarry.core.Invocable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import reactor.blockhound.BlockHound;

/**
 * The test mode that enforces Quarry's first rule: a thread that must not block never does. A thread must not block
 * while it carries the "must not block" mark ({@link Invocable#isNonBlockingInvocation()}): while it owns production of
 * an execution strategy (a selector thread), while it runs a task declared non-blocking, and while the timer's ticker
 * ticks. If such a thread parks (a contended lock, a future's get, a condition), sleeps, waits on a monitor, spins
 * ({@code Thread.yield}, {@code onSpinWait}), touches the file system ({@code stat}, {@code open}, directory reads,
 * {@code realpath}), reads or writes a file, or waits for a socket, the test that was running fails, with the stack of
 * the offending call.
 *
 * <p>Built on BlockHound, which instruments those JDK methods once per JVM; every thread is checked dynamically, on each
 * blocking call, against the mark. It is registered for every test of every module through JUnit's extension
 * auto-detection (quarry-core's test-jar carries the service file; the build enables auto-detection), so
 * {@code mvn verify} runs every test under it. {@code -Dquarry.blockingDetector=false} turns it off.
 *
 * <p>What is allowed on a marked thread, and why:
 * <ul>
 *   <li>logging: an operator's log is written where the event happens, as in every server; what a client can make the
 *       server log is kept at DEBUG, so a client cannot make the selectors write;
 *   <li>{@code sendfile} from a file to a non-blocking socket: it copies only what the socket buffer takes, from the
 *       page cache, as nginx does in its event loop (it is not marked as blocking);
 *   <li>closing a non-blocking channel, which waits for a read or write in progress on it (one non-blocking call);
 *   <li>what a module lists in a {@code quarry-blocking-allowances.txt} resource of its tests, one
 *       {@code class#method reason} per line: a bounded wait the code cannot avoid, named as narrowly as a method;
 *   <li>class loading and the other allowances BlockHound makes by default.
 * </ul>
 *
 * <p>A violation on a background thread (a server's) fails the test during which it happened. A test that blocks on
 * purpose (a test of the detector, of a strategy that is allowed to starve) says so with {@link BlockingAllowed}.
 *
 * <p>Thread-safety: violations are collected from any thread into a concurrent queue.
 */
@SuppressWarnings("exports")
public final class BlockingDetector implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback {
    private static final AtomicBoolean INSTALLED = new AtomicBoolean();
    private static final ConcurrentLinkedQueue<Throwable> VIOLATIONS = new ConcurrentLinkedQueue<>();
    private static final int REPORTED = 5;
    private static final String ALLOWANCES = "quarry-blocking-allowances.txt";

    /** Disables the check for a test class or method that blocks a marked thread on purpose. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @Inherited
    public @interface BlockingAllowed {
        /** @return why blocking is expected */
        String value();
    }

    /** @return whether the detector is on in this JVM (it is unless {@code -Dquarry.blockingDetector=false}) */
    public static boolean enabled() {
        return !"false".equals(System.getProperty("quarry.blockingDetector"));
    }

    /**
     * Installs the instrumentation once per JVM; later calls do nothing.
     *
     * @throws IllegalStateException if the JVM refuses the instrumentation (it needs
     *     {@code -XX:+AllowRedefinitionToAddDeleteMethods}, which the build passes to the test JVMs)
     */
    public static void install() {
        if (!enabled() || !INSTALLED.compareAndSet(false, true)) {
            return;
        }
        BlockHound.Builder builder = BlockHound.builder();
        for (String[] allowance : allowances()) {
            builder.allowBlockingCallsInside(allowance[0], allowance[1]);
        }
        builder
                // Every thread is checked on every blocking call (the mark comes and goes), not classified once.
                .addDynamicThreadPredicate(thread -> true)
                .nonBlockingThreadPredicate(current -> current.or(thread -> Invocable.isNonBlockingInvocation()))
                // The file system: metadata, opening, directory listing, path resolution (not in BlockHound's list).
                .markAsBlocking("sun.nio.fs.UnixNativeDispatcher", "stat0", "(JLsun/nio/fs/UnixFileAttributes;)I")
                .markAsBlocking("sun.nio.fs.UnixNativeDispatcher", "lstat0", "(JLsun/nio/fs/UnixFileAttributes;)V")
                .markAsBlocking("sun.nio.fs.UnixNativeDispatcher", "open0", "(JII)I")
                .markAsBlocking("sun.nio.fs.UnixNativeDispatcher", "openat0", "(IJII)I")
                .markAsBlocking("sun.nio.fs.UnixNativeDispatcher", "opendir0", "(J)J")
                .markAsBlocking("sun.nio.fs.UnixNativeDispatcher", "readdir0", "(J)[B")
                .markAsBlocking("sun.nio.fs.UnixNativeDispatcher", "realpath0", "(J)[B")
                .markAsBlocking("sun.nio.fs.UnixNativeDispatcher", "readlink0", "(J)[B")
                .markAsBlocking("sun.nio.fs.UnixNativeDispatcher", "access0", "(JI)I")
                // File content through FileChannel (and pipes); sockets have their own dispatcher, not marked.
                .markAsBlocking("sun.nio.ch.UnixFileDispatcherImpl", "read0", "(Ljava/io/FileDescriptor;JI)I")
                .markAsBlocking("sun.nio.ch.UnixFileDispatcherImpl", "pread0", "(Ljava/io/FileDescriptor;JIJ)I")
                .markAsBlocking("sun.nio.ch.UnixFileDispatcherImpl", "readv0", "(Ljava/io/FileDescriptor;JI)J")
                .markAsBlocking("sun.nio.ch.UnixFileDispatcherImpl", "write0", "(Ljava/io/FileDescriptor;JI)I")
                .markAsBlocking("sun.nio.ch.UnixFileDispatcherImpl", "pwrite0", "(Ljava/io/FileDescriptor;JIJ)I")
                // A virtual thread parks or sleeps without reaching Unsafe.park: a marked virtual thread must not
                // either.
                .markAsBlocking("java.lang.VirtualThread", "park", "()V")
                .markAsBlocking("java.lang.VirtualThread", "parkNanos", "(J)V")
                .markAsBlocking("java.lang.VirtualThread", "sleepNanos", "(J)V")
                // A socket in blocking mode waiting for readiness (java.net.Socket, blocking channels).
                .markAsBlocking("sun.nio.ch.Net", "poll", "(Ljava/io/FileDescriptor;IJ)I")
                // Closing a non-blocking channel waits for a read or write in progress on it: one non-blocking call.
                .allowBlockingCallsInside("sun.nio.ch.SocketChannelImpl", "implCloseNonBlockingMode")
                .allowBlockingCallsInside("java.util.logging.StreamHandler", "publish")
                .allowBlockingCallsInside("java.util.logging.ConsoleHandler", "publish")
                .allowBlockingCallsInside("java.util.logging.FileHandler", "publish")
                .blockingMethodCallback(method -> VIOLATIONS.add(new AssertionError(
                        "blocking call on " + Thread.currentThread().getName() + ", which must not block: " + method)))
                .install();
    }

    /**
     * The allowances of the modules under test: every {@value #ALLOWANCES} resource on the class path, one
     * {@code class#method reason} per line, {@code #} comments.
     */
    private static List<String[]> allowances() {
        List<String[]> found = new ArrayList<>();
        try {
            Enumeration<URL> resources = BlockingDetector.class.getClassLoader().getResources(ALLOWANCES);
            while (resources.hasMoreElements()) {
                try (InputStream in = resources.nextElement().openStream()) {
                    for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                        String entry = line.strip();
                        if (entry.isEmpty() || entry.startsWith("#")) {
                            continue;
                        }
                        String target = entry.split("\\s+", 2)[0];
                        int hash = target.indexOf('#');
                        if (hash <= 0 || entry.split("\\s+", 2).length < 2) {
                            throw new IllegalStateException(
                                    "bad blocking allowance (want 'class#method reason'): " + entry);
                        }
                        found.add(new String[] {target.substring(0, hash), target.substring(hash + 1)});
                    }
                }
            }
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
        return found;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        install();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        VIOLATIONS.clear();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<Throwable> found = drain();
        if (found.isEmpty() || !enabled() || allowed(context)) {
            return;
        }
        AssertionError failure = new AssertionError(found.size() + " blocking call(s) on threads that must not block,"
                + " first " + Math.min(found.size(), REPORTED) + " below (see BlockingDetector)");
        for (int i = 0; i < Math.min(found.size(), REPORTED); i++) {
            failure.addSuppressed(found.get(i));
        }
        if (context.getExecutionException().isPresent()) {
            context.getExecutionException().get().addSuppressed(failure);
            return;
        }
        throw failure;
    }

    /**
     * Takes the violations recorded since the last call: for the detector's own tests.
     *
     * @return the violations, oldest first
     */
    public static List<Throwable> drain() {
        List<Throwable> found = new ArrayList<>();
        Throwable next;
        while ((next = VIOLATIONS.poll()) != null) {
            found.add(next);
        }
        return found;
    }

    private static boolean allowed(ExtensionContext context) {
        return context.getElement()
                        .flatMap(element -> AnnotationSupport.findAnnotation(element, BlockingAllowed.class))
                        .isPresent()
                || context.getTestClass()
                        .flatMap(type -> AnnotationSupport.findAnnotation(type, BlockingAllowed.class))
                        .isPresent();
    }
}
