package dev.quarry.core.test;

import dev.quarry.core.buffer.BucketedByteBufferPool;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.buffer.LeakTrackingByteBufferPool;
import java.time.Duration;
import java.util.Objects;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives each test a fresh {@link LeakTrackingByteBufferPool} (over a default {@link BucketedByteBufferPool}) and fails
 * the test after it ran if any buffer from that pool leaked or was released twice, listing where each leaked buffer
 * was acquired.
 *
 * <p>Use it on a test class and declare the pool as a parameter of the test method (or of a {@code @BeforeEach} or
 * {@code @AfterEach} method: they all get the same pool):
 *
 * <pre>{@code
 * @ExtendWith(LeakTrackingPoolExtension.class)
 * class ParserTest {
 *     @Test
 *     void parsesARequestLine(ByteBufferPool pool) { ... }
 * }
 * }</pre>
 *
 * Parameters of type {@link ByteBufferPool} and {@link LeakTrackingByteBufferPool} are resolved. Before failing, the
 * check waits up to a grace period (one second by default) for buffers that other threads (a server's, a client's)
 * release just after the test's last step; a test that leaks pays the grace period once. Register an instance with
 * {@code @RegisterExtension} to choose another grace period.
 *
 * <p>It lives in a package of its own, not in {@code dev.quarry.core.buffer}: other modules' tests load quarry-core's
 * test-jar from the class path, where a package that the named module {@code dev.quarry.core} also contains would be
 * invisible to them.
 *
 * <p>The check runs after the test's own {@code @AfterEach} methods, so they may release what the test kept. If the test
 * itself failed, the leak report is added to its failure as a suppressed exception.
 */
// JUnit's types appear in this public class's API, and JUnit is not a module of the patched test module: expected.
@SuppressWarnings("exports")
public final class LeakTrackingPoolExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

    /** How long the check waits by default for buffers still held by other threads. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(1);

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(LeakTrackingPoolExtension.class);
    private static final String POOL = "pool";

    private final Duration grace;

    /** An extension with the default grace period. */
    public LeakTrackingPoolExtension() {
        this(DEFAULT_GRACE);
    }

    /**
     * @param grace how long the check after each test waits for buffers still held by other threads
     */
    public LeakTrackingPoolExtension(Duration grace) {
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must not be negative: " + grace);
        }
        this.grace = grace;
    }

    /**
     * The pool of the current test, for helpers that have an extension context but no parameter.
     *
     * @param context the test method's extension context
     * @return the test's pool, created on first use
     */
    public static LeakTrackingByteBufferPool pool(ExtensionContext context) {
        Objects.requireNonNull(context, "context");
        if (context.getTestMethod().isEmpty()) {
            throw new IllegalStateException("a leak-tracking pool belongs to one test method, but "
                    + context.getUniqueId() + " is not a test method: use the pool in the test, @BeforeEach or"
                    + " @AfterEach methods");
        }
        return context.getStore(NAMESPACE)
                .getOrComputeIfAbsent(POOL, key -> new LeakTrackingByteBufferPool(), LeakTrackingByteBufferPool.class);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        pool(context);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        LeakTrackingByteBufferPool pool = context.getStore(NAMESPACE).remove(POOL, LeakTrackingByteBufferPool.class);
        if (pool != null) {
            pool.assertNoLeaks(grace);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == ByteBufferPool.class || type == LeakTrackingByteBufferPool.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        try {
            return pool(context);
        } catch (IllegalStateException x) {
            throw new ParameterResolutionException(
                    "cannot resolve " + parameter.getParameter() + ": " + x.getMessage(), x);
        }
    }

    @Override
    public String toString() {
        return "LeakTrackingPoolExtension{grace=" + grace + "}";
    }
}
