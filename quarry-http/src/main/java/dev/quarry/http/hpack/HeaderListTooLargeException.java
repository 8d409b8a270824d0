package dev.quarry.http.hpack;

/**
 * A header block decoded to a header list larger than the decoder's {@link HpackLimits#maxHeaderListSize()} (counted
 * as RFC 9113 counts {@code SETTINGS_MAX_HEADER_LIST_SIZE}: name octets + value octets + 32 per field) or with more
 * fields than {@link HpackLimits#maxFieldCount()}.
 *
 * <p>A stream error: the decoder processed the whole block, kept its dynamic table in step with the peer's encoder
 * and stopped handing fields to the sink once the limit was crossed, so the connection continues and the next block
 * decodes normally. The HTTP/2 layer answers 431 (Request Header Fields Too Large) or resets the stream.
 */
public final class HeaderListTooLargeException extends HpackException {

    private final long headerListSize;
    private final int fieldCount;

    /**
     * @param message names the limit and the value that crossed it
     * @param headerListSize the size of the whole decoded list, in RFC 9113 octets
     * @param fieldCount the number of fields in the whole decoded list
     */
    public HeaderListTooLargeException(String message, long headerListSize, int fieldCount) {
        super(message);
        this.headerListSize = headerListSize;
        this.fieldCount = fieldCount;
    }

    /** @return the size of the whole decoded header list: the sum of name + value octets + 32 over its fields */
    public long headerListSize() {
        return headerListSize;
    }

    /** @return the number of fields in the whole decoded header list */
    public int fieldCount() {
        return fieldCount;
    }

    @Override
    public boolean isConnectionError() {
        return false;
    }
}
