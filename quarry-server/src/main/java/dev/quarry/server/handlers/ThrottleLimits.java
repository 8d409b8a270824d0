package dev.quarry.server.handlers;

import dev.quarry.core.throttle.TokenBucket;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The limits a {@link Throttle} applies, immutable: change them at run time by giving the throttle a new instance
 * ({@link Throttle#limits(ThrottleLimits)}, {@link Throttle#update}) or through its {@link ThrottleMXBean}.
 *
 * <p>Three rates apply to every response that is not allow-listed, together: the <b>global</b> rate shared by all
 * clients, the <b>per-client</b> rate shared by the concurrent requests of one client address, and the
 * <b>per-request</b> rate. A rate of 0 means unlimited. Each has a burst, the capacity of its token bucket; 0 picks
 * {@code max(2 * chunkSize, rate / 10)}: room for the chunk being waited for plus the next, and 100 ms of the rate.
 * Global and client buckets start full; a request's bucket starts empty, so that a download of {@code S} bytes at a
 * request rate {@code R} takes {@code S / R} from its first byte (the throttling article's 200 KiB at 20 KiB/s: 10 s).
 *
 * <p>Content is sent in chunks of at most {@link #chunkSize()} bytes, each one granted by all the buckets before it is
 * written; a chunk is also never larger than a bucket's capacity or one second of its rate, so that no chunk waits
 * much longer than a second for its own bucket, and a rate change takes effect within about a second.
 *
 * <p>{@link #maxRequestsPerClient()} caps the requests of one client address <em>in flight at once</em> (0: no cap);
 * the excess is answered 429 with {@code Retry-After}. A handler sees requests, not connections: with HTTP/1.1 each
 * request in flight occupies its own connection, so this is the number of busy connections; with HTTP/2 each stream
 * counts. Connections idle between requests are not counted (they cost no bandwidth; the server's connection limits and
 * idle timeout deal with them).
 *
 * <p>Clients in {@link #allow()} are not throttled at all; clients in {@link #deny()} get 403. Deny wins.
 *
 * @param globalRate bytes per second for all clients together; 0 for unlimited
 * @param globalBurst capacity of the global bucket in bytes; 0 for the default
 * @param clientRate bytes per second per client address; 0 for unlimited
 * @param clientBurst capacity of each client's bucket; 0 for the default
 * @param requestRate bytes per second per request; 0 for unlimited
 * @param requestBurst capacity of each request's bucket; 0 for the default
 * @param chunkSize the largest piece of content written at once, in bytes
 * @param maxRequestsPerClient requests of one client in flight at once; 0 for no cap
 * @param allow clients that are never throttled
 * @param deny clients that are refused with 403
 * @param clientIdleEviction how long a client's bucket is kept after its last request ended (it is evicted only once
 *     full again, so eviction never changes what a client may send)
 */
public record ThrottleLimits(
        long globalRate,
        long globalBurst,
        long clientRate,
        long clientBurst,
        long requestRate,
        long requestBurst,
        int chunkSize,
        int maxRequestsPerClient,
        AddressSet allow,
        AddressSet deny,
        Duration clientIdleEviction) {

    /** The default chunk size: 16 KiB. */
    public static final int DEFAULT_CHUNK_SIZE = 16 * 1024;

    /** The largest chunk size: 16 MiB. */
    public static final int MAX_CHUNK_SIZE = 16 * 1024 * 1024;

    /** The default time a client's bucket is kept after its last request: 60 s. */
    public static final Duration DEFAULT_CLIENT_IDLE_EVICTION = Duration.ofSeconds(60);

    /** No limit at all. */
    public static final ThrottleLimits NONE = builder().build();

    private static final Pattern AMOUNT =
            Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)\\s*(/\\s*s(?:ec)?\\s*)?");

    /** Validates every limit. */
    public ThrottleLimits {
        checkRate("globalRate", globalRate);
        checkRate("clientRate", clientRate);
        checkRate("requestRate", requestRate);
        checkBurst("globalBurst", globalBurst);
        checkBurst("clientBurst", clientBurst);
        checkBurst("requestBurst", requestBurst);
        if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
            throw new IllegalArgumentException("chunkSize must be 1.." + MAX_CHUNK_SIZE + " bytes, was " + chunkSize);
        }
        if (maxRequestsPerClient < 0) {
            throw new IllegalArgumentException(
                    "maxRequestsPerClient must be >= 0 (0: no cap), was " + maxRequestsPerClient);
        }
        Objects.requireNonNull(allow, "allow");
        Objects.requireNonNull(deny, "deny");
        Objects.requireNonNull(clientIdleEviction, "clientIdleEviction");
        if (clientIdleEviction.isNegative() || clientIdleEviction.isZero()) {
            throw new IllegalArgumentException("clientIdleEviction must be positive, was " + clientIdleEviction);
        }
    }

    /** @return a builder with no limits */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder starting from these limits */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** @return the capacity of the global bucket: the burst, or the default derived from the rate */
    public long globalCapacity() {
        return capacity(globalRate, globalBurst);
    }

    /** @return the capacity of each client's bucket */
    public long clientCapacity() {
        return capacity(clientRate, clientBurst);
    }

    /** @return the capacity of each request's bucket */
    public long requestCapacity() {
        return capacity(requestRate, requestBurst);
    }

    /** @return whether any per-client state is needed: a client rate or a cap on a client's requests */
    public boolean tracksClients() {
        return clientRate > 0 || maxRequestsPerClient > 0;
    }

    private long capacity(long rate, long burst) {
        if (burst > 0) {
            return burst;
        }
        return Math.min(TokenBucket.MAX_AMOUNT, Math.max(2L * chunkSize, rate / 10));
    }

    /**
     * @param rate a rate in bytes per second, 0 for unlimited
     * @return the rate of a token bucket
     */
    static long bucketRate(long rate) {
        return rate == 0 ? TokenBucket.UNLIMITED : rate;
    }

    /**
     * Parses a rate in bytes (never bits) per second: a number, an optional unit and an optional {@code /s}:
     * {@code 20k}, {@code 1Mi}, {@code 20MiB/s}, {@code 20 KiB/s}, {@code 1.5M}, {@code 500000}. Units, any case:
     * {@code B} (or none); decimal {@code k}/{@code kB} = 1000, {@code M}/{@code MB} = 1000², {@code G}/{@code GB} =
     * 1000³; binary {@code Ki}/{@code KiB} = 1024, {@code Mi}/{@code MiB} = 1024², {@code Gi}/{@code GiB} = 1024³. A
     * unit that reads as bits ({@code kb}, {@code Mb}, {@code kbit}, {@code Mbps}) is refused rather than taken for
     * bytes.
     * {@code 0}, {@code unlimited}, {@code none} and {@code off} mean unlimited (0).
     *
     * @param text the rate
     * @return bytes per second, 0 for unlimited
     * @throws IllegalArgumentException naming the text if it is not a rate or is out of range
     */
    public static long parseRate(String text) {
        Objects.requireNonNull(text, "text");
        String lower = text.trim().toLowerCase(Locale.ROOT);
        if (lower.equals("unlimited") || lower.equals("none") || lower.equals("off")) {
            return 0;
        }
        long rate = parseAmount(text, true);
        checkRate("rate '" + text + "'", rate);
        return rate;
    }

    /**
     * Parses a size like {@link #parseRate} without the {@code /s}: {@code 16KiB}, {@code 1Mi}, {@code 64k},
     * {@code 512}.
     *
     * @param text the size
     * @return bytes
     * @throws IllegalArgumentException naming the text if it is not a size
     */
    public static long parseSize(String text) {
        Objects.requireNonNull(text, "text");
        return parseAmount(text, false);
    }

    private static long parseAmount(String text, boolean rate) {
        Matcher m = AMOUNT.matcher(text);
        if (!m.matches() || (!rate && m.group(3) != null)) {
            throw new IllegalArgumentException("not a " + (rate ? "rate" : "size") + ": '" + text + "' (expected e.g. "
                    + (rate ? "20k, 1Mi, 20MiB/s, 1.5M or 500000" : "16Ki, 64k, 1MiB or 512") + ")");
        }
        String unitText = m.group(2);
        String lowerUnit = unitText.toLowerCase(Locale.ROOT);
        if (lowerUnit.contains("bit")
                || lowerUnit.endsWith("bps")
                || (unitText.length() == 2 && unitText.charAt(1) == 'b')) {
            // A lower-case b after k, M or G is the bit: 8 times less than meant if taken for bytes.
            throw new IllegalArgumentException("'" + text + "' looks like bits: " + (rate ? "rates" : "sizes")
                    + " are in bytes (8 Mbit/s = 1MB/s); units: B, k, M, G (powers of 1000), Ki, Mi, Gi (of 1024)");
        }
        long unit = switch (lowerUnit) {
            case "", "b" -> 1L;
            case "k", "kb" -> 1000L;
            case "m", "mb" -> 1000_000L;
            case "g", "gb" -> 1000_000_000L;
            case "ki", "kib" -> 1L << 10;
            case "mi", "mib" -> 1L << 20;
            case "gi", "gib" -> 1L << 30;
            default ->
                throw new IllegalArgumentException("unknown unit '" + unitText + "' in '" + text
                        + "' (B; k, M, G for powers of 1000; Ki, Mi, Gi for powers of 1024; an optional B after)");
        };
        BigDecimal amount = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit));
        if (amount.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("too large: '" + text + "'");
        }
        return amount.setScale(0, RoundingMode.HALF_UP).longValueExact();
    }

    /**
     * @param rate bytes per second, 0 for unlimited
     * @return e.g. {@code 20 MiB/s}, {@code 1500 B/s} or {@code unlimited}
     */
    public static String formatRate(long rate) {
        return rate == 0 ? "unlimited" : formatSize(rate) + "/s";
    }

    /**
     * @param bytes a size
     * @return the size in the largest binary unit that divides it exactly, else the largest decimal one, e.g.
     *     {@code 16 KiB}, {@code 20 kB}, {@code 1500 B}: what {@link #parseSize} reads back
     */
    public static String formatSize(long bytes) {
        String binary = format(bytes, 1024, new String[] {"B", "KiB", "MiB", "GiB", "TiB"});
        return binary.endsWith(" B") ? format(bytes, 1000, new String[] {"B", "kB", "MB", "GB", "TB"}) : binary;
    }

    private static String format(long bytes, int base, String[] units) {
        int unit = 0;
        long value = bytes;
        while (unit < units.length - 1 && value != 0 && value % base == 0) {
            value /= base;
            unit++;
        }
        return value + " " + units[unit];
    }

    private static void checkRate(String name, long rate) {
        if (rate < 0 || rate > TokenBucket.MAX_RATE) {
            throw new IllegalArgumentException(
                    name + " must be 0 (unlimited) to " + TokenBucket.MAX_RATE + " bytes/s, was " + rate);
        }
    }

    private static void checkBurst(String name, long burst) {
        if (burst < 0 || burst > TokenBucket.MAX_AMOUNT) {
            throw new IllegalArgumentException(
                    name + " must be 0 (default) to " + TokenBucket.MAX_AMOUNT + " bytes, was " + burst);
        }
    }

    @Override
    public String toString() {
        return "ThrottleLimits{global=" + formatRate(globalRate) + burst(globalRate, globalBurst) + ", client="
                + formatRate(clientRate) + burst(clientRate, clientBurst) + ", request=" + formatRate(requestRate)
                + burst(requestRate, requestBurst) + ", chunk=" + formatSize(chunkSize) + ", maxRequestsPerClient="
                + (maxRequestsPerClient == 0 ? "unlimited" : maxRequestsPerClient) + ", allow=[" + allow + "], deny=["
                + deny + "], clientIdleEviction=" + clientIdleEviction + "}";
    }

    private String burst(long rate, long burst) {
        return rate == 0 ? "" : " (burst " + formatSize(capacity(rate, burst)) + ")";
    }

    /** Builds {@link ThrottleLimits}; every limit starts unlimited. Not thread-safe. */
    public static final class Builder {
        private long globalRate;
        private long globalBurst;
        private long clientRate;
        private long clientBurst;
        private long requestRate;
        private long requestBurst;
        private int chunkSize = DEFAULT_CHUNK_SIZE;
        private int maxRequestsPerClient;
        private AddressSet allow = AddressSet.NONE;
        private AddressSet deny = AddressSet.NONE;
        private Duration clientIdleEviction = DEFAULT_CLIENT_IDLE_EVICTION;

        private Builder() {}

        private Builder(ThrottleLimits limits) {
            this.globalRate = limits.globalRate;
            this.globalBurst = limits.globalBurst;
            this.clientRate = limits.clientRate;
            this.clientBurst = limits.clientBurst;
            this.requestRate = limits.requestRate;
            this.requestBurst = limits.requestBurst;
            this.chunkSize = limits.chunkSize;
            this.maxRequestsPerClient = limits.maxRequestsPerClient;
            this.allow = limits.allow;
            this.deny = limits.deny;
            this.clientIdleEviction = limits.clientIdleEviction;
        }

        /**
         * @param bytesPerSecond for all clients together; 0 for unlimited
         * @return this
         */
        public Builder globalRate(long bytesPerSecond) {
            this.globalRate = bytesPerSecond;
            return this;
        }

        /**
         * @param bytes capacity of the global bucket; 0 for the default
         * @return this
         */
        public Builder globalBurst(long bytes) {
            this.globalBurst = bytes;
            return this;
        }

        /**
         * @param bytesPerSecond per client address; 0 for unlimited
         * @return this
         */
        public Builder clientRate(long bytesPerSecond) {
            this.clientRate = bytesPerSecond;
            return this;
        }

        /**
         * @param bytes capacity of each client's bucket; 0 for the default
         * @return this
         */
        public Builder clientBurst(long bytes) {
            this.clientBurst = bytes;
            return this;
        }

        /**
         * @param bytesPerSecond per request; 0 for unlimited
         * @return this
         */
        public Builder requestRate(long bytesPerSecond) {
            this.requestRate = bytesPerSecond;
            return this;
        }

        /**
         * @param bytes capacity of each request's bucket; 0 for the default
         * @return this
         */
        public Builder requestBurst(long bytes) {
            this.requestBurst = bytes;
            return this;
        }

        /**
         * @param bytes the largest piece of content written at once
         * @return this
         */
        public Builder chunkSize(int bytes) {
            this.chunkSize = bytes;
            return this;
        }

        /**
         * @param max requests of one client address in flight at once; 0 for no cap
         * @return this
         */
        public Builder maxRequestsPerClient(int max) {
            this.maxRequestsPerClient = max;
            return this;
        }

        /**
         * @param allow clients that are never throttled
         * @return this
         */
        public Builder allow(AddressSet allow) {
            this.allow = Objects.requireNonNull(allow, "allow");
            return this;
        }

        /**
         * @param allow addresses and CIDR blocks, see {@link AddressSet#parse}
         * @return this
         */
        public Builder allow(String allow) {
            return allow(AddressSet.parse(allow));
        }

        /**
         * @param deny clients refused with 403
         * @return this
         */
        public Builder deny(AddressSet deny) {
            this.deny = Objects.requireNonNull(deny, "deny");
            return this;
        }

        /**
         * @param deny addresses and CIDR blocks, see {@link AddressSet#parse}
         * @return this
         */
        public Builder deny(String deny) {
            return deny(AddressSet.parse(deny));
        }

        /**
         * @param idle how long a client's bucket is kept after its last request ended
         * @return this
         */
        public Builder clientIdleEviction(Duration idle) {
            this.clientIdleEviction = Objects.requireNonNull(idle, "idle");
            return this;
        }

        /**
         * @return the limits
         * @throws IllegalArgumentException naming the first value out of range
         */
        public ThrottleLimits build() {
            return new ThrottleLimits(
                    globalRate,
                    globalBurst,
                    clientRate,
                    clientBurst,
                    requestRate,
                    requestBurst,
                    chunkSize,
                    maxRequestsPerClient,
                    allow,
                    deny,
                    clientIdleEviction);
        }
    }
}
