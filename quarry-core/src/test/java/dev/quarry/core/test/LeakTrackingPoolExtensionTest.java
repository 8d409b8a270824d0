package dev.quarry.core.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.quarry.core.buffer.BucketedByteBufferPool;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.buffer.LeakTrackingByteBufferPool;
import dev.quarry.core.buffer.RetainableByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs {@link Cases} with the Jupiter engine inside this test and checks which of its tests the extension failed: the
 * proof that a test that leaks a buffer does fail.
 */
@ExtendWith(LeakTrackingPoolExtension.class)
class LeakTrackingPoolExtensionTest {

    private static final String INSIDE_ENGINE_TEST_KIT = "quarry.test.leak-extension-cases";

    private LeakTrackingByteBufferPool beforeEachPool;

    @Test
    void failsExactlyTheTestsThatLeakOrReleaseTwice() {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter(INSIDE_ENGINE_TEST_KIT, "true")
                .selectors(selectClass(Cases.class))
                .execute();

        Map<String, TestExecutionResult> outcomes = results.testEvents().finished().stream()
                .collect(Collectors.toMap(
                        event -> event.getTestDescriptor().getDisplayName(),
                        event -> event.getRequiredPayload(TestExecutionResult.class)));

        assertEquals(6, outcomes.size(), outcomes::toString);
        assertSucceeded(outcomes.get("releasesWhatItAcquires(ByteBufferPool)"));
        assertSucceeded(outcomes.get("releasesInAfterEach(LeakTrackingByteBufferPool)"));
        assertSucceeded(outcomes.get("acquiresNothing()"));

        AssertionError leak = assertFailedWith(outcomes.get("leaksOneBuffer(ByteBufferPool)"));
        assertTrue(leak.getMessage().startsWith("1 buffer leaked"), leak.getMessage());
        assertTrue(leak.getMessage().contains(Cases.class.getName() + ".leaksOneBuffer("), leak.getMessage());

        AssertionError twoLeaks = assertFailedWith(outcomes.get("leaksTwoBuffers(ByteBufferPool)"));
        assertTrue(twoLeaks.getMessage().startsWith("2 buffers leaked"), twoLeaks.getMessage());

        AssertionError doubleRelease = assertFailedWith(outcomes.get("swallowsADoubleRelease(ByteBufferPool)"));
        assertTrue(
                doubleRelease.getMessage().contains("1 buffer released more times than acquired and retained"),
                doubleRelease.getMessage());
        assertTrue(
                doubleRelease.getMessage().contains(Cases.class.getName() + ".swallowsADoubleRelease("),
                doubleRelease.getMessage());
    }

    @Test
    void givesTheSamePoolToTheTestAndItsCallbacks(ByteBufferPool pool, LeakTrackingByteBufferPool tracking) {
        assertSame(pool, tracking);
        assertSame(beforeEachPool, pool);
        assertInstanceOf(BucketedByteBufferPool.class, tracking.delegate());
        pool.acquire(10, true).release();
    }

    @BeforeEach
    void rememberThePool(LeakTrackingByteBufferPool pool) {
        beforeEachPool = pool;
    }

    @Test
    void rejectsANegativeGracePeriod() {
        IllegalArgumentException failure = assertThrows(
                IllegalArgumentException.class, () -> new LeakTrackingPoolExtension(Duration.ofSeconds(-1)));

        assertTrue(failure.getMessage().contains("PT-1S"), failure.getMessage());
    }

    private static void assertSucceeded(TestExecutionResult result) {
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, result.getStatus(), result::toString);
    }

    private static AssertionError assertFailedWith(TestExecutionResult result) {
        assertEquals(TestExecutionResult.Status.FAILED, result.getStatus(), result::toString);
        return assertInstanceOf(AssertionError.class, result.getThrowable().orElseThrow());
    }

    /** Runs only inside {@link EngineTestKit}, never on its own in the build. */
    static final class OnlyInsideEngineTestKit implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(INSIDE_ENGINE_TEST_KIT).isPresent()
                    ? ConditionEvaluationResult.enabled("run by LeakTrackingPoolExtensionTest")
                    : ConditionEvaluationResult.disabled("only run by LeakTrackingPoolExtensionTest");
        }
    }

    /** Tests that leak and tests that do not, with a short grace period so that the failing ones fail quickly. */
    @ExtendWith(OnlyInsideEngineTestKit.class)
    static class Cases {

        @RegisterExtension
        static final LeakTrackingPoolExtension LEAKS = new LeakTrackingPoolExtension(Duration.ofMillis(20));

        private RetainableByteBuffer keptUntilAfterEach;

        @AfterEach
        void releaseWhatWasKept() {
            if (keptUntilAfterEach != null) {
                keptUntilAfterEach.release();
            }
        }

        @Test
        void releasesWhatItAcquires(ByteBufferPool pool) {
            RetainableByteBuffer buffer = pool.acquire(100, true);
            buffer.retain();
            buffer.release();
            buffer.release();
        }

        @Test
        void releasesInAfterEach(LeakTrackingByteBufferPool pool) {
            keptUntilAfterEach = pool.acquire(100, false);
        }

        @Test
        void acquiresNothing() {}

        @Test
        void leaksOneBuffer(ByteBufferPool pool) {
            pool.acquire(100, true);
        }

        @Test
        void leaksTwoBuffers(ByteBufferPool pool) {
            pool.acquire(100, true);
            pool.acquire(100, false).retain();
        }

        @Test
        void swallowsADoubleRelease(ByteBufferPool pool) {
            RetainableByteBuffer buffer = pool.acquire(100, true);
            buffer.release();
            try {
                buffer.release();
            } catch (IllegalStateException ignored) {
                // Code under test that swallows the error: the extension must still fail the test.
            }
        }
    }
}
