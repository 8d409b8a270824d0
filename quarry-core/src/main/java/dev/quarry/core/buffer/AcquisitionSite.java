package dev.quarry.core.buffer;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Where a buffer was acquired (or released): the calling thread and its stack, captured as a {@link Throwable} because
 * that is the cheapest snapshot the JDK offers: the VM records the frames natively and builds the
 * {@link StackTraceElement}s only if {@link #frames()} is ever called, that is only for a buffer that is reported.
 *
 * <p>Immutable once constructed; never thrown.
 */
final class AcquisitionSite extends Throwable {

    /** Frames of the leak detectors themselves, which the reader of a report does not need. */
    private static final Set<String> OWN_CLASSES = Set.of(
            AcquisitionSite.class.getName(),
            AbstractRetainableByteBuffer.class.getName(),
            LeakTrackingByteBufferPool.class.getName(),
            TrackedByteBuffer.class.getName(),
            SamplingLeakDetector.class.getName(),
            SampledByteBuffer.class.getName());

    /** How many frames a report shows; a test's stack below its method is mostly the test engine. */
    private static final int MAX_REPORTED_FRAMES = 40;

    private final String thread;

    AcquisitionSite() {
        super(null, null, false, true);
        this.thread = Thread.currentThread().getName();
    }

    /** @return the name of the thread that acquired the buffer */
    String thread() {
        return thread;
    }

    /** @return the captured stack, starting at the first frame outside the leak detectors */
    List<StackTraceElement> frames() {
        StackTraceElement[] stack = getStackTrace();
        int first = 0;
        while (first < stack.length && OWN_CLASSES.contains(stack[first].getClassName())) {
            first++;
        }
        return List.of(Arrays.copyOfRange(stack, first, stack.length));
    }

    /**
     * Formats a report: the headline, then the frames as a stack trace prints them.
     *
     * @param headline what happened
     * @param frames the stack to show
     * @return the report, several lines
     */
    static String format(String headline, List<StackTraceElement> frames) {
        StringBuilder report = new StringBuilder(headline);
        int shown = Math.min(frames.size(), MAX_REPORTED_FRAMES);
        for (int index = 0; index < shown; index++) {
            report.append(System.lineSeparator()).append("\tat ").append(frames.get(index));
        }
        if (shown < frames.size()) {
            report.append(System.lineSeparator())
                    .append("\t... ")
                    .append(frames.size() - shown)
                    .append(" more");
        }
        return report.toString();
    }
}
