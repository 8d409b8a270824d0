/**
 * Quarry's concurrency toolkit: invocation types and callbacks, execution strategies (produce-consume,
 * produce-execute-consume, execute-produce-consume and adaptive), the thread pool with reserved threads, bounded
 * virtual-thread execution, the hashed-wheel timer, the lock-free pool and the retainable buffer pool.
 *
 * <p>No dependency outside the JDK; logging goes through {@link java.lang.System.Logger}.
 */
module dev.quarry.core {
    requires java.management;

    exports dev.quarry.core;
    exports dev.quarry.core.strategy;
    exports dev.quarry.core.thread;
    exports dev.quarry.core.timer;
    exports dev.quarry.core.pool;
    exports dev.quarry.core.buffer;
    exports dev.quarry.core.throttle;
// dev.quarry.core.internal is exported (qualified) to the upper modules as they are added.
}
