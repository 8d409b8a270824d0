package dev.quarry.core.throttle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A token bucket: tokens (bytes, requests, anything) accrue at {@link #rate()} per second up to {@link #capacity()},
 * and callers take them. Lock-free, allocation-free on every operation except {@link #reconfigure}, and refilled
 * lazily: there is no filler thread, so there is no filler racing with the takers (the "major multi-threading bug" of
 * "Tenfold increase in server throughput with Servlet 3.0 asynchronous processing") and nothing to stop.
 *
 * <h2>State: one word per configuration</h2>
 *
 * <p>The bucket does not store a token count that someone must keep topping up. It stores one {@code long}, the
 * position {@code Z} of the bucket on a <em>token clock</em>: {@code T(now) = floor((now - origin) * rate / 1e9)}
 * counts every token that has accrued since the configuration's origin, and the bucket holds
 * {@code min(capacity, T(now) - Z)} tokens. Taking {@code n} tokens is one CAS that moves {@code Z} to
 * {@code max(Z, T(now) - capacity) + n}: the {@code max} is the capacity cap (tokens that overflowed a full bucket are
 * gone), applied when somebody looks rather than by a background task. Because {@code T} is computed from the absolute
 * elapsed time, never accumulated, the sub-token remainder is kept implicitly and the long-run rate is exact: over any
 * interval the bucket grants at most {@code capacity + rate * seconds} tokens, and a taker who keeps it empty gets
 * exactly {@code floor(rate * seconds)} plus what it held at the start, whatever the rate's relation to 1e9
 * (20 MiB/s is 47.68... ns per token) and however often it asks.
 *
 * <p>Arithmetic never overflows: elapsed time is split into seconds and nanoseconds ({@code rem * rate < 1e9 *
 * 2^33}), rates are at most {@link #MAX_RATE} (8 GiB/s; faster is {@link #UNLIMITED}), and when the token clock
 * nears 2^58 tokens (after at least 388 days at the maximum rate) the bucket rebases itself, which costs the sub-token
 * remainder once. Clock values are compared by subtraction, so {@link System#nanoTime()} may wrap.
 *
 * <h2>Changing rate and capacity at run time</h2>
 *
 * <p>The rate and origin define the token clock, so a new rate needs a new clock and {@code Z} must be translated
 * into it atomically with respect to concurrent takes. Each configuration is an immutable <em>generation</em> holding
 * its own word; a change (1) links the new generation as the old one's successor, (2) seals the old word with a flag
 * bit by CAS, which fails every later take on it, (3) writes the new word, translated from the sealed value: the
 * tokens the old bucket held at the new origin, clamped to the new capacity (a debt carries over as a debt), and
 * (4) makes the new generation current. Any thread that meets a sealed word performs the missing steps itself, with
 * the same inputs, so the translation is deterministic and a stalled reconfiguring thread blocks nobody: lock-free.
 * Hence a change neither loses tokens nor invents them beyond the new capacity; a smaller capacity drops the excess,
 * a larger one does not fill the bucket. (Tokens that accrue at the old rate between the change's clock reading and
 * its seal, a few microseconds' worth, may be counted again at the new rate.)
 *
 * <h2>Command-query separation (the throttling article's point 4)</h2>
 *
 * <p>The queries, {@link #available()} and {@link #nanosUntil(long)}, are pure: they do not even write back the lazy
 * refill. The commands ({@link #tryTake}, {@link #take}, {@link #reserve}) report their outcome, which breaks CQS on
 * purpose and cannot be avoided: with concurrent takers a query followed by a command is check-then-act, and another
 * thread may take the tokens in between. Only the atomic command itself knows whether it took and how much, exactly as
 * {@code Queue.poll()} or {@code compareAndSet} return their outcome. The way to wait without a race is therefore
 * {@link #reserve(long)}: take now, possibly into debt, and be told how long until the tokens exist; or
 * {@link #tryTake} and, when refused, park for {@link #nanosUntil(long)}, accepting that someone may be faster.
 *
 * <p>Thread-safety: every method may be called from any thread. Cost: O(1), lock-free (a CAS loop that retries only
 * when another thread changed the word), no allocation except in {@link #reconfigure}. Memory: the hot word shares
 * its cache line with the generation's read-only fields, which every operation reads anyway, so it is not padded.
 */
public final class TokenBucket {
    /** The rate of a bucket without limit: every take succeeds at once. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    /** The highest finite rate, in tokens per second (8 GiB/s); higher rates are {@link #UNLIMITED}. */
    public static final long MAX_RATE = 1L << 33;

    /** The largest capacity and the largest amount taken, reserved or refunded in one call. */
    public static final long MAX_AMOUNT = 1L << 56;

    static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** The token clock is rebased when it reaches this many tokens, far below where {@code Z << 2} overflows. */
    private static final long REBASE_TOKENS = 1L << 58;

    /** A debt beyond this cannot be encoded; reaching it means a caller reserves without ever waiting. */
    private static final long MAX_POSITION = 1L << 60;

    /** Longest wait reported: far from overflowing when added to a clock reading. */
    private static final long MAX_WAIT_NANOS = Long.MAX_VALUE >> 2;

    private static final long SEALED = 1;
    private static final long UNSET = 2;
    private static final VarHandle CURRENT;
    private static final VarHandle WORD;
    private static final VarHandle NEXT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CURRENT = lookup.findVarHandle(TokenBucket.class, "current", Generation.class);
            WORD = lookup.findVarHandle(Generation.class, "word", long.class);
            NEXT = lookup.findVarHandle(Generation.class, "next", Generation.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final NanoClock clock;

    @SuppressWarnings("unused") // through CURRENT
    private volatile Generation current;

    private TokenBucket(NanoClock clock, long rate, long capacity, long initialTokens) {
        this.clock = clock;
        // The token clock starts at 0 at the origin, so holding k tokens means Z = -k.
        this.current = new Generation(rate, capacity, clock.nanoTime(), encode(-initialTokens));
    }

    /**
     * A full bucket on the system clock.
     *
     * @param rate tokens per second, 1 to {@link #MAX_RATE}, or {@link #UNLIMITED}
     * @param capacity the most tokens it holds (the burst), 1 to {@link #MAX_AMOUNT}
     * @return the bucket
     * @throws IllegalArgumentException if a value is out of range
     */
    public static TokenBucket of(long rate, long capacity) {
        return builder().rate(rate).capacity(capacity).build();
    }

    /** @return a bucket without limit on the system clock; {@link #reconfigure} may limit it later */
    public static TokenBucket unlimited() {
        return builder().build();
    }

    /** @return a builder: unlimited, capacity 1, full, on the system clock, until told otherwise */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Takes {@code n} tokens if the bucket holds them, otherwise nothing.
     *
     * @param n how many, 0 to {@link #MAX_AMOUNT}; more than the capacity is always refused
     * @return whether they were taken
     */
    public boolean tryTake(long n) {
        return claim(n, true) >= 0;
    }

    /**
     * Takes up to {@code n} tokens: as many as the bucket holds.
     *
     * @param n the most to take, 0 to {@link #MAX_AMOUNT}
     * @return how many were taken, 0 to {@code n}
     */
    public long take(long n) {
        return claim(n, false);
    }

    /**
     * The one CAS loop behind {@link #tryTake} and {@link #take}; callers pass a constant, so the JIT folds the branch.
     *
     * @return the tokens taken; -1 when {@code allOrNothing} and the bucket holds fewer than {@code n}
     */
    private long claim(long n, boolean allOrNothing) {
        checkAmount(n);
        while (true) {
            Generation g = current;
            if (g.unlimited) {
                return n;
            }
            long word = g.word;
            if ((word & SEALED) != 0) {
                advance(g);
                continue;
            }
            long tokens = tokenClock(g, clock.nanoTime() - g.origin);
            if (tokens >= REBASE_TOKENS) {
                rebase(g);
                continue;
            }
            long base = Math.max(decode(word), tokens - g.capacity);
            long held = tokens - base;
            long granted = allOrNothing ? (held < n ? -1 : n) : Math.min(n, Math.max(0, held));
            if (granted <= 0) {
                return granted;
            }
            if (WORD.compareAndSet(g, word, encode(base + granted))) {
                return granted;
            }
        }
    }

    /**
     * Takes {@code n} tokens now, into debt if the bucket does not hold them, and says how long until the debt is paid
     * back, i.e. until the tokens taken have accrued. A caller that then waits that long before using the tokens never
     * exceeds the rate; callers that reserve one after the other are served in that order, each waiting for its own
     * tokens, so that many waiters on one bucket wake once each instead of all racing for every new token.
     *
     * @param n how many, 0 to {@link #MAX_AMOUNT}; may exceed the capacity (the wait is then longer)
     * @return nanoseconds to wait before using the tokens; 0 if they were in the bucket
     * @throws IllegalStateException if the debt became absurd (about 2^60 tokens: nobody waits)
     */
    public long reserve(long n) {
        checkAmount(n);
        while (true) {
            Generation g = current;
            if (g.unlimited) {
                return 0;
            }
            long word = g.word;
            if ((word & SEALED) != 0) {
                advance(g);
                continue;
            }
            long elapsed = clock.nanoTime() - g.origin;
            long tokens = tokenClock(g, elapsed);
            if (tokens >= REBASE_TOKENS) {
                rebase(g);
                continue;
            }
            long position = Math.max(decode(word), tokens - g.capacity) + n;
            if (position > MAX_POSITION) {
                throw new IllegalStateException("debt of " + (position - tokens) + " tokens is too large: " + this);
            }
            if (WORD.compareAndSet(g, word, encode(position))) {
                return position <= tokens ? 0 : waitFor(g, position, elapsed);
            }
        }
    }

    /**
     * Gives back tokens taken or reserved earlier and not used (a write that failed, a hierarchical take that another
     * bucket refused). Exact when nothing filled the bucket meanwhile; otherwise the bucket ends full, never fuller.
     *
     * @param n how many, 0 to {@link #MAX_AMOUNT}
     */
    public void refund(long n) {
        checkAmount(n);
        while (true) {
            Generation g = current;
            if (g.unlimited || n == 0) {
                return;
            }
            long word = g.word;
            if ((word & SEALED) != 0) {
                advance(g);
                continue;
            }
            long tokens = tokenClock(g, clock.nanoTime() - g.origin);
            if (tokens >= REBASE_TOKENS) {
                rebase(g);
                continue;
            }
            // Materialising the cap first keeps Z within capacity + n of the clock, whatever callers refund.
            long base = Math.max(decode(word), tokens - g.capacity);
            if (WORD.compareAndSet(g, word, encode(base - n))) {
                return;
            }
        }
    }

    /**
     * How long until the bucket holds {@code n} tokens, if nobody else takes any. A pure query: it changes nothing.
     *
     * @param n how many, 0 to {@link #MAX_AMOUNT}
     * @return nanoseconds, 0 if they are there now; {@link Long#MAX_VALUE} if {@code n} exceeds the capacity (never)
     */
    public long nanosUntil(long n) {
        checkAmount(n);
        while (true) {
            Generation g = current;
            if (g.unlimited) {
                return 0;
            }
            if (n > g.capacity) {
                return Long.MAX_VALUE;
            }
            long word = g.word;
            if ((word & SEALED) != 0) {
                // Completing a change that a command started is not a side effect of this query.
                advance(g);
                continue;
            }
            long elapsed = clock.nanoTime() - g.origin;
            long tokens = tokenClock(g, elapsed);
            long base = Math.max(decode(word), tokens - g.capacity);
            return tokens - base >= n ? 0 : waitFor(g, base + n, elapsed);
        }
    }

    /**
     * A pure query.
     *
     * @return the tokens in the bucket now; negative while it is in debt after {@link #reserve(long)};
     *     {@link Long#MAX_VALUE} if unlimited
     */
    public long available() {
        while (true) {
            Generation g = current;
            if (g.unlimited) {
                return Long.MAX_VALUE;
            }
            long word = g.word;
            if ((word & SEALED) != 0) {
                advance(g);
                continue;
            }
            long tokens = tokenClock(g, clock.nanoTime() - g.origin);
            return tokens - Math.max(decode(word), tokens - g.capacity);
        }
    }

    /**
     * Changes rate and capacity atomically with respect to concurrent takes, keeping the tokens the bucket holds (or
     * its debt), clamped to the new capacity. Allocates one small object.
     *
     * @param rate tokens per second, 1 to {@link #MAX_RATE}, or {@link #UNLIMITED}
     * @param capacity the most tokens it holds, 1 to {@link #MAX_AMOUNT}; when leaving unlimited mode the bucket
     *     starts full
     * @throws IllegalArgumentException if a value is out of range
     */
    public void reconfigure(long rate, long capacity) {
        checkRate(rate);
        checkCapacity(capacity);
        while (true) {
            Generation g = current;
            if (g.next != null) {
                advance(g);
                continue;
            }
            Generation next = new Generation(rate, capacity, clock.nanoTime(), UNSET);
            if (NEXT.compareAndSet(g, null, next)) {
                advance(g);
                return;
            }
        }
    }

    /** @return tokens per second, or {@link #UNLIMITED} */
    public long rate() {
        return current.rate;
    }

    /** @return the most tokens the bucket holds */
    public long capacity() {
        return current.capacity;
    }

    /** @return whether every take succeeds at once */
    public boolean isUnlimited() {
        return current.unlimited;
    }

    @Override
    public String toString() {
        Generation g = current;
        if (g.unlimited) {
            return "TokenBucket{unlimited}";
        }
        return "TokenBucket{rate=" + g.rate + "/s, capacity=" + g.capacity + ", available=" + available() + "}";
    }

    // --- generations ------------------------------------------------------------------------------------------------

    /** Completes the change that {@code g.next} started: seal, translate, publish. Idempotent; any thread. */
    private void advance(Generation g) {
        Generation next = g.next;
        long sealed;
        while (true) {
            long word = g.word;
            if ((word & SEALED) != 0) {
                sealed = word;
                break;
            }
            if (WORD.compareAndSet(g, word, word | SEALED)) {
                sealed = word | SEALED;
                break;
            }
        }
        if (next.word == UNSET) {
            // Every helper computes the same value from the same sealed word and origin: whoever comes first wins.
            WORD.compareAndSet(next, UNSET, translate(g, sealed, next));
        }
        CURRENT.compareAndSet(this, g, next);
    }

    /** The first word of {@code next}: the tokens {@code g} held at {@code next}'s origin, within its capacity. */
    private static long translate(Generation g, long sealed, Generation next) {
        if (next.unlimited) {
            return 0;
        }
        long held;
        if (g.unlimited) {
            held = next.capacity;
        } else {
            long tokens = tokenClock(g, next.origin - g.origin);
            held = Math.min(tokens - Math.max(decode(sealed), tokens - g.capacity), next.capacity);
        }
        return encode(-held);
    }

    /** Starts a change to the same rate and capacity on a fresh origin, unless another change is under way. */
    private void rebase(Generation g) {
        NEXT.compareAndSet(g, null, new Generation(g.rate, g.capacity, clock.nanoTime(), UNSET));
        advance(g);
    }

    /** {@code floor(elapsed * rate / 1e9)} without overflow; saturates at twice the rebase threshold. */
    static long tokenClock(Generation g, long elapsed) {
        if (elapsed <= 0) {
            return 0;
        }
        long seconds = elapsed / NANOS_PER_SECOND;
        if (seconds >= g.saturationSeconds) {
            return 2 * REBASE_TOKENS;
        }
        return seconds * g.rate + (elapsed % NANOS_PER_SECOND) * g.rate / NANOS_PER_SECOND;
    }

    /** Nanoseconds from {@code elapsed} until the token clock reaches {@code position} (the inverse of the above). */
    private static long waitFor(Generation g, long position, long elapsed) {
        long seconds = position / g.rate;
        if (seconds >= MAX_WAIT_NANOS / NANOS_PER_SECOND) {
            return MAX_WAIT_NANOS;
        }
        // The smallest e with floor(e * rate / 1e9) >= position is ceil(position * 1e9 / rate).
        long at = seconds * NANOS_PER_SECOND + ((position % g.rate) * NANOS_PER_SECOND + g.rate - 1) / g.rate;
        return Math.max(0, at - elapsed);
    }

    private static long encode(long position) {
        return position << 2;
    }

    private static long decode(long word) {
        return word >> 2;
    }

    private static void checkAmount(long n) {
        if (n < 0 || n > MAX_AMOUNT) {
            throw new IllegalArgumentException("token amount must be 0.." + MAX_AMOUNT + ", was " + n);
        }
    }

    private static void checkRate(long rate) {
        if (rate != UNLIMITED && (rate < 1 || rate > MAX_RATE)) {
            throw new IllegalArgumentException(
                    "rate must be 1.." + MAX_RATE + " tokens/s or TokenBucket.UNLIMITED, was " + rate);
        }
    }

    private static void checkCapacity(long capacity) {
        if (capacity < 1 || capacity > MAX_AMOUNT) {
            throw new IllegalArgumentException("capacity must be 1.." + MAX_AMOUNT + ", was " + capacity);
        }
    }

    /**
     * One configuration: rate, capacity and the origin of its token clock (all final), and the word: the position
     * {@code Z} shifted left by two, with the flags SEALED (a change replaced this generation: no more takes) and UNSET
     * (not yet translated from its predecessor; never seen by takers, who only reach published generations).
     */
    static final class Generation {
        final long rate;
        final long capacity;
        final long origin;
        final boolean unlimited;
        final long saturationSeconds;

        @SuppressWarnings("unused") // through WORD
        volatile long word;

        @SuppressWarnings("unused") // through NEXT
        volatile Generation next;

        Generation(long rate, long capacity, long origin, long word) {
            this.rate = rate;
            this.capacity = capacity;
            this.origin = origin;
            this.unlimited = rate == UNLIMITED;
            this.saturationSeconds = unlimited ? Long.MAX_VALUE : 2 * REBASE_TOKENS / rate;
            this.word = word;
        }
    }

    /** Configures a {@link TokenBucket}. Not thread-safe. */
    public static final class Builder {
        private long rate = UNLIMITED;
        private long capacity = 1;
        private long initialTokens = -1;
        private NanoClock clock = NanoClock.SYSTEM;

        private Builder() {}

        /**
         * @param rate tokens per second, 1 to {@link #MAX_RATE}, or {@link #UNLIMITED} (the default)
         * @return this
         */
        public Builder rate(long rate) {
            checkRate(rate);
            this.rate = rate;
            return this;
        }

        /**
         * @param capacity the most tokens the bucket holds (its burst), 1 to {@link #MAX_AMOUNT}
         * @return this
         */
        public Builder capacity(long capacity) {
            checkCapacity(capacity);
            this.capacity = capacity;
            return this;
        }

        /**
         * @param tokens what the bucket holds at first, 0 to the capacity; the capacity (full) unless set
         * @return this
         */
        public Builder initialTokens(long tokens) {
            checkAmount(tokens);
            this.initialTokens = tokens;
            return this;
        }

        /** @return this, starting empty: what a per-request bucket wants, so that its rate holds from byte one */
        public Builder empty() {
            return initialTokens(0);
        }

        /**
         * @param clock the clock; tests pass a simulated one
         * @return this
         */
        public Builder clock(NanoClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @return the bucket
         * @throws IllegalArgumentException if the initial tokens exceed the capacity
         */
        public TokenBucket build() {
            long initial = initialTokens < 0 ? capacity : initialTokens;
            if (initial > capacity) {
                throw new IllegalArgumentException("initial tokens " + initial + " exceed the capacity " + capacity);
            }
            return new TokenBucket(clock, rate, capacity, initial);
        }
    }
}
