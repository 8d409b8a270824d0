package dev.quarry.http.hpack;

/**
 * A header block could not be decoded, or decoded to more than the limits allow. The subclass says how far the damage
 * reaches, which tells the HTTP/2 layer how to answer:
 *
 * <ul>
 *   <li>{@link HpackCompressionException}: the decoding context is lost; the connection must be closed with
 *       {@code COMPRESSION_ERROR} (RFC 9113 4.3);
 *   <li>{@link HeaderListTooLargeException}: the block was fully decoded and the decoder is still in step with the
 *       peer's encoder, but the header list exceeds a local limit; only the stream fails (HTTP 431 or
 *       {@code RST_STREAM}) and the connection continues (RFC 9113 10.5.1).
 * </ul>
 */
public abstract sealed class HpackException extends Exception
        permits HpackCompressionException, HeaderListTooLargeException {

    HpackException(String message) {
        super(message);
    }

    /** @return true if the connection must be closed, false if only the stream that carried the block fails */
    public abstract boolean isConnectionError();
}
