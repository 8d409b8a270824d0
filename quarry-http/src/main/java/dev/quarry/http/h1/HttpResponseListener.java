package dev.quarry.http.h1;

import dev.quarry.http.HttpVersion;

/**
 * The events of an HTTP/1 response: its status line, on top of the message events of {@link HttpMessageListener}.
 * An interim (1xx) response is a complete message of its own: the client resets the parser and the final response
 * follows.
 *
 * <p>Thread-safety: called by the thread that calls {@link HttpResponseParser#parse}, one callback at a time.
 */
public interface HttpResponseListener extends HttpMessageListener {

    /**
     * A valid status line.
     *
     * @param version HTTP/1.0 or HTTP/1.1
     * @param status the status code, 100 to 599
     * @param reason the reason phrase, possibly empty; a client should ignore it (RFC 9112 §4)
     */
    void startResponse(HttpVersion version, int status, String reason);
}
