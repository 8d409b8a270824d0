package dev.quarry.http.hpack;

/**
 * A header block was malformed (truncated integer or string, integer overflow, index 0 or beyond the tables, bad
 * Huffman code or padding, misplaced or too large dynamic table size update) or held a string longer than the
 * decoder accepts. The decoder stopped in the middle of the block, so its dynamic table no longer matches the peer's:
 * a connection error of type {@code COMPRESSION_ERROR} (RFC 9113 4.3). The decoder must not be used again.
 */
public final class HpackCompressionException extends HpackException {

    /** @param message names the problem and the offending value */
    public HpackCompressionException(String message) {
        super(message);
    }

    @Override
    public boolean isConnectionError() {
        return true;
    }
}
