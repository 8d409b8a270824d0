package dev.quarry.core;

/**
 * How a task or callback may behave when it runs, which is what lets an execution strategy decide whether the thread
 * that found the task may run it in place (with a hot cache) or must hand it to another thread.
 *
 * <p>The classification comes from Jetty's "eat what you kill" work: a task that only wakes a blocked reader or
 * writer, or that handles a flow-control frame, never blocks and can always be run by the producing thread, which is
 * what keeps a server alive when every pooled thread is blocked in application code.
 */
public enum InvocationType {
    /** The task may block (application code, blocking I/O, locks held for long): never run it on a producer. */
    BLOCKING,
    /** The task never blocks: run it in place, even on the last available thread. */
    NON_BLOCKING,
    /**
     * The task can run either way: when invoked through {@link Invocable#invokeNonBlocking(Runnable)} it must not
     * block (for example an HTTP/2 session that then only parses and dispatches), otherwise it may.
     */
    EITHER;

    /**
     * The type of two activities run one after the other: blocking if either blocks, non-blocking if both never
     * block, either otherwise.
     *
     * @param other the type of the other activity
     * @return the combined type
     */
    public InvocationType combine(InvocationType other) {
        if (this == BLOCKING || other == BLOCKING) {
            return BLOCKING;
        }
        if (this == NON_BLOCKING && other == NON_BLOCKING) {
            return NON_BLOCKING;
        }
        return EITHER;
    }
}
