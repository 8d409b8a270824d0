package dev.quarry.core.thread;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The thread pool's job queue: an unbounded or bounded lock-free multi-producer multi-consumer FIFO, a linked list with
 * a dummy head in the manner of Michael and Scott.
 *
 * <p>Each node carries what the statistics need, so that queueing a task costs one allocation and nothing more: the
 * time it was enqueued (for the queue latency) and its sequence number, one more than its predecessor's. The size is
 * then {@code tail.seq - head.seq} in O(1) without a shared counter, and the capacity bound is exact: a node is linked
 * only if its sequence number minus the head's does not exceed the capacity (a stale head only makes the check more
 * conservative, since the head's sequence only grows).
 *
 * <p>A dequeued dummy is linked to itself so that the garbage collector does not keep a chain of dead nodes alive from
 * an old-generation node; a thread that meets such a self-link has fallen off the list and restarts from the head. The
 * tail is moved only when it lags (so it may be a node or two behind the last one, or even behind the head); enqueue
 * walks forward from it.
 *
 * <p>Thread-safety: all methods may be called from any thread. Cost: enqueue and dequeue O(1) amortised, lock-free,
 * one allocation per enqueue. Head and tail are padded apart so that producers and consumers do not share a line.
 */
final class JobQueue extends JobQueueTail {
    @SuppressWarnings("unused")
    private long p20, p21, p22, p23, p24, p25, p26, p27;

    /** Capacity value meaning "no bound". */
    static final long UNBOUNDED = Long.MAX_VALUE;

    private final long capacity;

    /**
     * @param capacity the maximum number of queued jobs, or {@link #UNBOUNDED}
     */
    JobQueue(long capacity) {
        super(new Node(null, 0L));
        if (capacity < 1) {
            throw new IllegalArgumentException("queue capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    /** @return the capacity, or {@link #UNBOUNDED} */
    long capacity() {
        return capacity;
    }

    /**
     * Appends a job.
     *
     * @param task the job
     * @param nowNanos the enqueue time, from {@link System#nanoTime()}
     * @return the queue size right after the job was linked (at least 1), or 0 if the queue was full
     */
    long offer(Runnable task, long nowNanos) {
        Node node = new Node(task, nowNanos);
        Node t = tail();
        Node p = t;
        for (; ; ) {
            Node next = p.next();
            if (next == null) {
                long seq = p.seq + 1;
                long size = seq - head().seq;
                if (size > capacity) {
                    return 0;
                }
                node.seq = seq; // published by the CAS below
                if (p.casNext(null, node)) {
                    // Move the tail only when it lagged (every second enqueue): half the CASes on a line that all
                    // producers share; if the CAS fails, another producer moved it further.
                    if (p != t) {
                        casTail(t, node);
                    }
                    return size;
                }
                // Lost the race for p.next: read it again and walk on.
            } else if (next == p) {
                // p was dequeued and self-linked: the tail lags behind the head; restart from a fresher place.
                Node fresh = tail();
                p = fresh != t ? (t = fresh) : head();
            } else {
                p = next;
            }
        }
    }

    /**
     * Takes the oldest job.
     *
     * @return the node of the oldest job, which the caller now owns and must {@link Node#take() take}, or null when
     *     empty
     */
    Node poll() {
        for (; ; ) {
            Node h = head();
            Node next = h.next();
            if (next == null) {
                return null;
            }
            if (next != h && casHead(h, next)) {
                // next is the new dummy; its task is ours since only the thread that made it the head reads it.
                h.selfLink();
                return next;
            }
            // Another consumer moved the head (h may be self-linked already): read it again.
        }
    }

    /** @return whether no job is queued; a racy snapshot that may err towards "not empty" */
    boolean isEmpty() {
        return head().next() == null;
    }

    /** @return the number of queued jobs, a racy snapshot; O(1) (a step or two from the lagging tail to the end) */
    long size() {
        Node h = head();
        Node p = tail();
        for (; ; ) {
            Node next = p.next();
            if (next == null) {
                break;
            }
            // A self-linked tail has fallen behind the head, so the list is short: walk it from the head.
            p = next == p ? head() : next;
        }
        return Math.max(0L, p.seq - h.seq);
    }

    /**
     * Removes every queued job. Racing consumers may take some of them first.
     *
     * @return the jobs removed, oldest first
     */
    List<Runnable> drain() {
        List<Runnable> jobs = new ArrayList<>();
        for (Node node = poll(); node != null; node = poll()) {
            jobs.add(node.take());
        }
        return jobs;
    }

    /**
     * Describes up to {@code limit} queued jobs, oldest first; weakly consistent.
     *
     * @param limit the maximum number of jobs to describe
     * @return descriptions of the jobs
     */
    List<String> describe(int limit) {
        List<String> jobs = new ArrayList<>();
        Node node = head().next();
        while (node != null && jobs.size() < limit) {
            Runnable task = node.task;
            if (task != null) {
                jobs.add(String.valueOf(task));
            }
            Node next = node.next();
            node = next == node ? null : next;
        }
        return jobs;
    }

    @Override
    public String toString() {
        return "JobQueue{size=" + size() + ", capacity=" + (capacity == UNBOUNDED ? "unbounded" : capacity) + "}";
    }

    /** One queued job. */
    static final class Node {
        private static final VarHandle NEXT;

        static {
            try {
                NEXT = MethodHandles.lookup().findVarHandle(Node.class, "next", Node.class);
            } catch (ReflectiveOperationException x) {
                throw new ExceptionInInitializerError(x);
            }
        }

        /** The job; cleared by the consumer that takes it, so that a dummy does not retain a finished job. */
        private Runnable task;

        /** When the job was enqueued, from {@link System#nanoTime()}. */
        final long enqueuedNanos;

        /** One more than the predecessor's; written before the node is published. */
        long seq;

        @SuppressWarnings("unused") // accessed through NEXT
        private volatile Node next;

        Node(Runnable task, long enqueuedNanos) {
            this.task = task;
            this.enqueuedNanos = enqueuedNanos;
        }

        /** @return the job, which is cleared here; called once by the consumer that {@link #poll() polled} it */
        Runnable take() {
            Runnable job = task;
            task = null;
            return job;
        }

        Node next() {
            return (Node) NEXT.getVolatile(this);
        }

        boolean casNext(Node expected, Node value) {
            return NEXT.compareAndSet(this, expected, value);
        }

        void selfLink() {
            NEXT.setRelease(this, this);
        }
    }
}

/** Left padding of the queue's head. */
abstract class JobQueuePad0 {
    @SuppressWarnings("unused")
    private long p00, p01, p02, p03, p04, p05, p06, p07;
}

/** The head (the dummy node), written by consumers. */
abstract class JobQueueHead extends JobQueuePad0 {
    private static final VarHandle HEAD;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(JobQueueHead.class, "head", JobQueue.Node.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    @SuppressWarnings("unused") // accessed through HEAD
    private volatile JobQueue.Node head;

    JobQueueHead(JobQueue.Node dummy) {
        HEAD.setRelease(this, dummy);
    }

    final JobQueue.Node head() {
        return (JobQueue.Node) HEAD.getVolatile(this);
    }

    final boolean casHead(JobQueue.Node expected, JobQueue.Node value) {
        return HEAD.compareAndSet(this, expected, value);
    }
}

/** Padding between head and tail. */
abstract class JobQueuePad1 extends JobQueueHead {
    @SuppressWarnings("unused")
    private long p10, p11, p12, p13, p14, p15, p16, p17;

    JobQueuePad1(JobQueue.Node dummy) {
        super(dummy);
    }
}

/** The tail, written by producers; may lag behind the last node. */
abstract class JobQueueTail extends JobQueuePad1 {
    private static final VarHandle TAIL;

    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(JobQueueTail.class, "tail", JobQueue.Node.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    @SuppressWarnings("unused") // accessed through TAIL
    private volatile JobQueue.Node tail;

    JobQueueTail(JobQueue.Node dummy) {
        super(dummy);
        TAIL.setRelease(this, dummy);
    }

    final JobQueue.Node tail() {
        return (JobQueue.Node) TAIL.getVolatile(this);
    }

    final void casTail(JobQueue.Node expected, JobQueue.Node value) {
        TAIL.compareAndSet(this, expected, value);
    }
}
