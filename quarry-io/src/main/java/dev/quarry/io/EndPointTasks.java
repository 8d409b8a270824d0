package dev.quarry.io;

import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;

/**
 * The tasks a selected key becomes ({@link SocketEndPoint#onSelected}): each completes the endpoint's pending fill or
 * write callback, and declares that callback's invocation type, so that the selector's strategy knows whether running
 * it in place may block. One of each per endpoint, created with it: selecting allocates nothing.
 *
 * <p>Thread-safety: stateless beyond the endpoint; run by whichever thread the strategy chooses.
 */
final class EndPointTasks {
    private EndPointTasks() {}

    /** Runs the fill callback. */
    static final class Read implements Invocable.Task {
        private final SocketEndPoint endPoint;

        Read(SocketEndPoint endPoint) {
            this.endPoint = endPoint;
        }

        @Override
        public void run() {
            endPoint.completeFill();
        }

        @Override
        public InvocationType invocationType() {
            return endPoint.fillInvocationType();
        }

        @Override
        public String toString() {
            return "Read[" + endPoint + "]";
        }
    }

    /** Completes a pending write. */
    static final class Write implements Invocable.Task {
        private final SocketEndPoint endPoint;

        Write(SocketEndPoint endPoint) {
            this.endPoint = endPoint;
        }

        @Override
        public void run() {
            endPoint.completeWrite();
        }

        @Override
        public InvocationType invocationType() {
            return endPoint.writeInvocationType();
        }

        @Override
        public String toString() {
            return "Write[" + endPoint + "]";
        }
    }

    /** Both: the write first, since completing it may free the connection to read. */
    static final class ReadWrite implements Invocable.Task {
        private final SocketEndPoint endPoint;

        ReadWrite(SocketEndPoint endPoint) {
            this.endPoint = endPoint;
        }

        @Override
        public void run() {
            endPoint.completeWrite();
            endPoint.completeFill();
        }

        @Override
        public InvocationType invocationType() {
            return endPoint.writeInvocationType().combine(endPoint.fillInvocationType());
        }

        @Override
        public String toString() {
            return "ReadWrite[" + endPoint + "]";
        }
    }
}
