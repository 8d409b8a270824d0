package dev.quarry.io;

/**
 * Recognises the JVM's answer to a read of a memory-mapped file past its end: a file truncated in place while it is
 * sent from its mapping makes the next read of the pages it lost raise SIGBUS, which HotSpot turns into an
 * {@link InternalError} ("a fault occurred in an unsafe memory access operation"; in compiled code, older JDKs said
 * "... in a recent unsafe memory access operation in compiled Java code"), possibly late, at the thread's next
 * safepoint poll. One test, shared by every place that copies from a mapping (the TLS connection, the HTTP/2 flusher)
 * and by the file sender that learns of the failure, so that they agree on what is a truncated file and what is a
 * bug (any other {@code InternalError}).
 *
 * <p>Thread-safety: stateless.
 */
public final class MappingFaults {
    private MappingFaults() {}

    /**
     * @param error what a copy threw
     * @return whether it is the JVM's fault for a read of a mapped file's missing pages
     */
    public static boolean isReadFault(Throwable error) {
        if (!(error instanceof InternalError)) {
            return false;
        }
        String message = error.getMessage();
        return message != null && message.contains("unsafe memory access");
    }

    /**
     * @param failure why a send failed
     * @return whether the failure or one of its causes is such a fault ({@link #isReadFault})
     */
    public static boolean causedByReadFault(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (isReadFault(cause)) {
                return true;
            }
        }
        return false;
    }
}
