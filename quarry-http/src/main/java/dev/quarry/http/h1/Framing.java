package dev.quarry.http.h1;

/**
 * How the content of an HTTP/1 response is delimited (RFC 9112 §6.3).
 *
 * <p>Thread-safety: immutable.
 */
public enum Framing {
    /** No content: HEAD, 1xx, 204, 304, or a 2xx answer to CONNECT (the connection becomes a tunnel). */
    NONE,
    /** {@code Content-Length: n}, then exactly n bytes. */
    CONTENT_LENGTH,
    /** {@code Transfer-Encoding: chunked}: HTTP/1.1 content of unknown length. */
    CHUNKED,
    /** Content ends when the connection closes: HTTP/1.0 content of unknown length. */
    CLOSE_DELIMITED
}
