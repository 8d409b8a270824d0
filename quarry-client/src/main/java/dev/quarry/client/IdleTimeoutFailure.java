package dev.quarry.client;

import java.net.SocketTimeoutException;

/**
 * The failure of an exchange whose idle timeout expired, worded the same over HTTP/1.1 and HTTP/2: which request,
 * which timeout, and in which phase the exchange made no progress, so that a user can tell a server that never
 * answered from one that stopped in the middle of its content.
 */
final class IdleTimeoutFailure {
    private IdleTimeoutFailure() {}

    /**
     * @param request the request that idled out
     * @param millis the idle timeout that expired
     * @param requestSent whether the whole request was handed to the connection
     * @param responseStarted whether the response head arrived
     * @return the failure; a {@link SocketTimeoutException} like every other timeout of the client
     */
    static SocketTimeoutException of(HttpRequest request, long millis, boolean requestSent, boolean responseStarted) {
        String phase;
        if (responseStarted) {
            phase = "waiting for the response content";
        } else if (requestSent) {
            phase = "waiting for the response head";
        } else {
            phase = "while sending the request";
        }
        return new SocketTimeoutException(
                "request " + request + ": idle timeout of " + millis + " ms expired " + phase);
    }
}
