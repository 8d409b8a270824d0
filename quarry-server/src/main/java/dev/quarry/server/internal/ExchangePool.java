package dev.quarry.server.internal;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The recycled HTTP/1.1 exchanges of a server, each with its request, response and their fields, waiting for the next
 * request of any connection. An HTTP/1.1 connection carries one exchange at a time: it takes one when a request starts
 * to arrive, keeps it for the requests that follow back to back (pipelined or not), and gives it back here when it
 * waits for the network. So a request allocates no exchange, and an idle connection holds none.
 *
 * <p>An array of slots, as many as exchanges may be in flight at once on a busy server (blocking handlers keep one per
 * connection with a request in progress: with 64 such connections, 64 come back together). A thread starts looking
 * at a cache line of its own (chosen by its id), so that a selector thread usually gets back the exchange it returned,
 * warm in its cache, and two selector threads do not take turns on one line; the scan goes on over every slot, line
 * after line. When every slot is full a returned exchange is left to the garbage collector, and when every slot is
 * empty a new one is made: the pool never grows past its slots, whatever the number of connections.
 *
 * <p>Only an exchange that completed normally comes back (see {@link Exchange#recycle()}); a failed one, whose handler
 * may still run, is dropped with its connection.
 *
 * <p>Thread-safety: lock-free, any thread; a take or a return is at most one CAS per visited slot and allocates
 * nothing. The slot's CAS orders the recycling writes of the returning thread before the reads of the taking one.
 */
public final class ExchangePool {
    /** Slots per cache line: 16 references of 4 bytes (compressed), or 8 of 8, fill 64 bytes. */
    private static final int LINE = 16;

    private final AtomicReferenceArray<Exchange> slots;
    private final int count;

    /** @param count how many exchanges to keep at most, at least 1 */
    public ExchangePool(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        this.count = count;
        this.slots = new AtomicReferenceArray<>(count);
    }

    /**
     * @return a pool sized for this machine: 64 slots per core, 128 at least and 512 at most (a full pool keeps about
     *     700 bytes per slot)
     */
    public static ExchangePool forAvailableProcessors() {
        return new ExchangePool(Math.clamp(64L * Runtime.getRuntime().availableProcessors(), 128, 512));
    }

    /**
     * Takes a recycled exchange, or makes one if none is free.
     *
     * @return an exchange between two requests, for the calling connection alone
     */
    public Exchange acquire() {
        int slot = start();
        for (int i = 0; i < count; i++) {
            Exchange exchange = slots.get(slot);
            if (exchange != null && slots.compareAndExchange(slot, exchange, null) == exchange) {
                return exchange;
            }
            if (++slot == count) {
                slot = 0;
            }
        }
        return new Exchange();
    }

    /**
     * Gives an exchange back, recycled, for another connection; left to the garbage collector if every slot is taken.
     *
     * @param exchange an exchange that completed normally, already {@linkplain Exchange#recycle() recycled}, which its
     *     connection no longer uses
     */
    public void release(Exchange exchange) {
        int slot = start();
        for (int i = 0; i < count; i++) {
            if (slots.get(slot) == null && slots.compareAndExchange(slot, null, exchange) == null) {
                return;
            }
            if (++slot == count) {
                slot = 0;
            }
        }
    }

    /** @return how many exchanges wait in the pool now; O(slots), for tests and dumps */
    public int idleCount() {
        int idle = 0;
        for (int i = 0; i < count; i++) {
            if (slots.get(i) != null) {
                idle++;
            }
        }
        return idle;
    }

    private int start() {
        return (int) ((Thread.currentThread().threadId() * LINE) % count);
    }

    @Override
    public String toString() {
        return "ExchangePool[" + idleCount() + "/" + count + " idle]";
    }
}
