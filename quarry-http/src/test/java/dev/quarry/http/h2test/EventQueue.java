package dev.quarry.http.h2test;

import dev.quarry.http.h2.Http2Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The events a {@link Http2TestClient} received, and the send windows they open: the reader thread adds, tests await.
 * An await takes the first matching event not taken yet and leaves the others for later awaits; the history keeps
 * every event. Flow-controlled sends wait here for credit, woken by the WINDOW_UPDATE and SETTINGS events that give it.
 *
 * <p>Thread-safety: one lock guards the lists and the windows; awaits wait on its condition.
 */
final class EventQueue {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final List<FrameEvent> pending = new ArrayList<>();
    private final List<FrameEvent> history = new ArrayList<>();
    private final SendWindows windows = new SendWindows();
    private final Supplier<String> diagnostics;

    /** @param diagnostics more to say when an await times out (e.g. a failed write) */
    EventQueue(Supplier<String> diagnostics) {
        this.diagnostics = diagnostics;
    }

    /** Adds an event (reader thread); a WINDOW_UPDATE or an INITIAL_WINDOW_SIZE setting also opens send windows. */
    void add(FrameEvent event) {
        lock.lock();
        try {
            switch (event) {
                case FrameEvent.WindowUpdate update -> windows.onWindowUpdate(update.streamId(), update.increment());
                case FrameEvent.Settings settings ->
                    settings.settings().get(Http2Settings.INITIAL_WINDOW_SIZE).ifPresent(windows::onInitialWindow);
                default -> {}
            }
            pending.add(event);
            history.add(event);
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the waiters, e.g. because the connection ended. */
    void signal() {
        lock.lock();
        try {
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** @return every event received so far, in order */
    List<FrameEvent> history() {
        lock.lock();
        try {
            return List.copyOf(history);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the first event not taken yet that is a {@code type} and matches {@code condition}.
     *
     * @throws AssertionError on timeout, listing the events received
     */
    <T extends FrameEvent> T await(Class<T> type, Predicate<? super T> condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                for (Iterator<FrameEvent> i = pending.iterator(); i.hasNext(); ) {
                    FrameEvent event = i.next();
                    if (type.isInstance(event) && condition.test(type.cast(event))) {
                        i.remove();
                        return type.cast(event);
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no " + type.getSimpleName() + " as expected within " + timeout
                            + "; received: " + history + diagnostics.get());
                }
                arrived.await(left, TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while awaiting " + type.getSimpleName(), x);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the peer's windows let {@code streamId} send, and takes up to {@code max} octets of that credit.
     *
     * @param closed whether the connection ended (then no credit will ever come)
     * @return the octets taken, at least 1
     * @throws AssertionError if no credit arrives before the deadline or the connection ends
     */
    int takeCredit(int streamId, int max, long deadlineNanos, Supplier<Boolean> closed) {
        lock.lock();
        try {
            while (true) {
                long available = windows.available(streamId);
                if (available > 0) {
                    int octets = (int) Math.min(max, available);
                    windows.consume(streamId, octets);
                    return octets;
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0 || closed.get()) {
                    throw new AssertionError("no flow-control credit for stream " + streamId + " ("
                            + (left <= 0 ? "timed out" : "connection ended") + "); " + windows + "; received: "
                            + history + diagnostics.get());
                }
                arrived.await(left, TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while awaiting credit for stream " + streamId, x);
        } finally {
            lock.unlock();
        }
    }

    /** @return the stream's send window now (negative if the peer shrank it below what was sent) */
    long streamWindow(int streamId) {
        lock.lock();
        try {
            return windows.stream(streamId);
        } finally {
            lock.unlock();
        }
    }

    /** @return the connection's send window now */
    long connectionWindow() {
        lock.lock();
        try {
            return windows.connection();
        } finally {
            lock.unlock();
        }
    }

    /** @return the number of events received */
    int size() {
        lock.lock();
        try {
            return history.size();
        } finally {
            lock.unlock();
        }
    }
}
