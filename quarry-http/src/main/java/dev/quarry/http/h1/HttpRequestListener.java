package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;

/**
 * The events of an HTTP/1 request: its request line, and the HTTP/2 connection preface of prior-knowledge h2c, on top
 * of the message events of {@link HttpMessageListener}.
 *
 * <p>Thread-safety: called by the thread that calls {@code parse}, one callback at a time.
 */
public interface HttpRequestListener extends HttpMessageListener {

    /**
     * A valid request line.
     *
     * @param method the method: the interned name of a standard {@link dev.quarry.http.HttpMethod}, or a new string for
     *     another token
     * @param target the request target as received, only visible ASCII; its form matches the method (asterisk-form
     *     for OPTIONS only, authority-form for CONNECT only); decode it with {@link dev.quarry.http.HttpUri}
     * @param version HTTP/1.0 or HTTP/1.1
     */
    void startRequest(String method, String target, HttpVersion version);

    /**
     * The connection starts with the complete HTTP/2 connection preface {@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n} (RFC
     * 9113 §3.4). The parser consumed the whole preface and no byte after it: the buffer is positioned right after the
     * preface, at the client's SETTINGS frame, so the HTTP/2 session starts in its "preface received" state with the
     * unconsumed bytes. The parser is then done ({@link HttpParser.State#HTTP2}) and {@code parse} returns true.
     *
     * <p>The default rejects prior-knowledge HTTP/2 with 505, for servers that only speak HTTP/1.
     *
     * @throws BadMessageException to reject the preface
     */
    default void http2Preface() {
        throw new BadMessageException(
                HttpStatus.HTTP_VERSION_NOT_SUPPORTED_505, "HTTP/2 connection preface, but HTTP/2 is not enabled");
    }
}
