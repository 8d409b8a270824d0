package dev.quarry.client;

import java.io.IOException;

/**
 * The server sent something that is not a valid HTTP/1.1 response (a malformed status line or field, conflicting
 * framing, a bad chunk). The request fails with it and the connection is closed, since nothing after the error can be
 * trusted; the other connections of the pool are not affected.
 */
public final class BadResponseException extends IOException {
    /**
     * @param message names the problem and the offending bytes
     */
    public BadResponseException(String message) {
        super(message);
    }
}
