package dev.quarry.http.h2;

import dev.quarry.http.HttpFields;

/**
 * The HTTP/2 message rules (RFC 9113 8.1-8.3) for the header blocks a server receives: a request head, or trailers.
 * A block that breaks them is a malformed message: a stream error PROTOCOL_ERROR (RFC 9113 8.1.1).
 */
public final class Http2Messages {
    private Http2Messages() {}

    /**
     * Validates a block that opens a stream: required and allowed pseudo-headers (and CONNECT's special form),
     * non-empty {@code :path} (or {@code *} only for OPTIONS), {@code :authority} consistent with Host, TE only
     * {@code trailers}, a well-formed content-length.
     *
     * @param streamId the stream, for the error
     * @param block the decoded block
     * @return the request head
     * @throws Http2Exception a stream error PROTOCOL_ERROR naming the rule broken
     */
    public static RequestHead request(int streamId, HeaderBlock block) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Validates a block that ends a stream after its content: no pseudo-header, and END_STREAM must be set (checked
     * by the caller).
     *
     * @param streamId the stream, for the error
     * @param block the decoded block
     * @return the trailer fields
     * @throws Http2Exception a stream error PROTOCOL_ERROR naming the rule broken
     */
    public static HttpFields trailers(int streamId, HeaderBlock block) {
        throw new UnsupportedOperationException("not implemented yet");
    }
}
