package dev.quarry.server;

import dev.quarry.http.HttpVersion;
import java.net.SocketAddress;

/**
 * What the access log keeps of one exchange, captured on the thread that completed it (references to strings the
 * request already holds, and numbers) and formatted later on the writer thread.
 *
 * @param client the client's address
 * @param startMillis when the request arrived, in milliseconds since the epoch
 * @param method the method
 * @param target the request target as received
 * @param version the protocol version
 * @param status the status sent, or to be sent for a failure answered with an error
 * @param bytes body bytes written through the response
 * @param durationNanos from the parsed request head to the handler's completion
 * @param referer the Referer field, or null
 * @param userAgent the User-Agent field, or null
 * @param requestId the response's X-Request-Id field, or null
 * @param aborted whether the handler failed after the response was committed (the exchange was aborted)
 */
record AccessLogEntry(
        SocketAddress client,
        long startMillis,
        String method,
        String target,
        HttpVersion version,
        int status,
        long bytes,
        long durationNanos,
        String referer,
        String userAgent,
        String requestId,
        boolean aborted) {}
