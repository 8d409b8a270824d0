package dev.quarry.http.hpack;

/**
 * The limits an {@link HpackDecoder} enforces against oversized and "HPACK bomb" header blocks (a few octets that
 * reference a large table entry many times).
 *
 * <p>Exceeding {@code maxHeaderListSize} or {@code maxFieldCount} is a stream error ({@link
 * HeaderListTooLargeException}): the decoder still processes the whole block. A string longer than {@code
 * maxStringLength} is a connection error ({@link HpackCompressionException}): the decoder refuses to materialise it,
 * which leaves its table out of step with the peer. Keep {@code maxStringLength} above {@code maxHeaderListSize} so
 * that an over-large but honest field costs the stream (a 431), not the connection.
 *
 * @param maxHeaderListSize the largest decoded header list, in RFC 9113 {@code SETTINGS_MAX_HEADER_LIST_SIZE} octets
 *     (sum of name + value + 32 per field); advertise the same value in SETTINGS
 * @param maxFieldCount the most fields in one header list
 * @param maxStringLength the longest decoded name or value, in octets
 */
public record HpackLimits(int maxHeaderListSize, int maxFieldCount, int maxStringLength) {

    /** 16 KiB of header list, 256 fields, strings up to 64 KiB. */
    public static final HpackLimits DEFAULT = new HpackLimits(16 * 1024, 256, 64 * 1024);

    /** Checks that every limit is positive. */
    public HpackLimits {
        if (maxHeaderListSize <= 0) {
            throw new IllegalArgumentException("maxHeaderListSize must be positive: " + maxHeaderListSize);
        }
        if (maxFieldCount <= 0) {
            throw new IllegalArgumentException("maxFieldCount must be positive: " + maxFieldCount);
        }
        if (maxStringLength <= 0) {
            throw new IllegalArgumentException("maxStringLength must be positive: " + maxStringLength);
        }
    }

    /** @return these limits with {@code maxHeaderListSize} replaced */
    public HpackLimits withMaxHeaderListSize(int maxHeaderListSize) {
        return new HpackLimits(maxHeaderListSize, maxFieldCount, maxStringLength);
    }

    /** @return these limits with {@code maxFieldCount} replaced */
    public HpackLimits withMaxFieldCount(int maxFieldCount) {
        return new HpackLimits(maxHeaderListSize, maxFieldCount, maxStringLength);
    }

    /** @return these limits with {@code maxStringLength} replaced */
    public HpackLimits withMaxStringLength(int maxStringLength) {
        return new HpackLimits(maxHeaderListSize, maxFieldCount, maxStringLength);
    }
}
