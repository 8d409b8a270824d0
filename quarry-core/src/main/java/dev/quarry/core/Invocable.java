package dev.quarry.core;

import dev.quarry.core.internal.NonBlockingFlag;
import java.util.Objects;

/**
 * Something that runs on some thread and declares its {@link InvocationType}, so that a strategy can decide where to
 * run it. Objects that do not implement this interface are treated as {@link InvocationType#BLOCKING}.
 *
 * <p>Thread-safety: the static methods are safe from any thread; the non-blocking flag is per thread.
 */
public interface Invocable {

    /**
     * How this runs; {@link InvocationType#BLOCKING} unless overridden, since assuming a task may block is the only
     * safe default.
     *
     * @return the invocation type, never null
     */
    default InvocationType invocationType() {
        return InvocationType.BLOCKING;
    }

    /**
     * The invocation type of any object: its declared type if it is {@link Invocable}, otherwise blocking.
     *
     * @param task a task, callback or null
     * @return the declared type, or {@link InvocationType#BLOCKING}
     */
    static InvocationType invocationTypeOf(Object task) {
        return task instanceof Invocable invocable ? invocable.invocationType() : InvocationType.BLOCKING;
    }

    /**
     * Whether the current thread must not block now: it owns production of an execution strategy (it is a selector
     * thread), runs a task declared {@link InvocationType#NON_BLOCKING}, or is inside
     * {@link #invokeNonBlocking(Runnable)}. An {@link InvocationType#EITHER} task checks this to know that it must not
     * block now, and the server's handler dispatch checks it to decide whether a blocking handler must leave this
     * thread. O(1), allocation-free.
     *
     * @return true while the current thread must not block
     */
    static boolean isNonBlockingInvocation() {
        return NonBlockingFlag.isSet();
    }

    /**
     * Runs a task on the current thread in non-blocking mode: while it runs, {@link #isNonBlockingInvocation()} is
     * true, so an {@link InvocationType#EITHER} task will avoid blocking. Nested calls keep the flag set.
     *
     * @param task the task to run now
     */
    static void invokeNonBlocking(Runnable task) {
        boolean wasSet = NonBlockingFlag.set();
        try {
            task.run();
        } finally {
            NonBlockingFlag.restore(wasSet);
        }
    }

    /**
     * A {@link Runnable} that declares its invocation type.
     */
    interface Task extends Invocable, Runnable {}

    /**
     * Wraps a runnable with a declared invocation type.
     *
     * @param type how the runnable behaves
     * @param runnable what to run
     * @return a task that runs {@code runnable} and reports {@code type}
     */
    static Task task(InvocationType type, Runnable runnable) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(runnable, "runnable");
        return new Task() {
            @Override
            public void run() {
                runnable.run();
            }

            @Override
            public InvocationType invocationType() {
                return type;
            }

            @Override
            public String toString() {
                return "Task@" + Integer.toHexString(hashCode()) + "{" + type + ", " + runnable + "}";
            }
        };
    }
}
