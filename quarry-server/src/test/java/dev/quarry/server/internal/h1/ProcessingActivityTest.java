package dev.quarry.server.internal.h1;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link ProcessingActivity#isProcessing()}: what a thread that closes the connection (and would release its buffers)
 * asks, instead of reading the processing thread's plain {@code processingThread} field.
 */
class ProcessingActivityTest {

    @Test
    void isProcessingFromEnterUntilTheExitThatLeaves() {
        ProcessingActivity activity = new ProcessingActivity();
        assertFalse(activity.isProcessing(), "nobody entered yet");

        assertTrue(activity.enter());
        assertTrue(activity.isProcessing());

        assertFalse(activity.enter(), "a second caller asks for another round instead");
        assertTrue(activity.exit(), "the thread inside goes round once more");
        assertTrue(activity.isProcessing(), "still inside, between two rounds");

        assertFalse(activity.exit());
        assertFalse(activity.isProcessing(), "left");
    }

    @Test
    void aConnectionClosedWhileIdleIsNotProcessing() {
        ProcessingActivity activity = new ProcessingActivity();
        long idle = activity.quiescent();
        assertTrue(activity.closeIfUnchanged(idle));
        // The closed state has every bit set, the ACTIVE bit among them: it must not read as processing, or nobody
        // would release the buffers.
        assertFalse(activity.isProcessing());
        assertFalse(activity.enter());
    }
}
