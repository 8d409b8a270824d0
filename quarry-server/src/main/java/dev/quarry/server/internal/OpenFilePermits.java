package dev.quarry.server.internal;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.server.Request;

/**
 * The bound on files that the responses of one connection keep open, for handlers that open files to answer
 * (`StaticFiles`): over HTTP/2, a connection's streams share {@code Http2Config.maxOpenFiles} permits and a stream
 * that finds none waits, holding no file, for another response to close its file. Other connections, and HTTP/1.1
 * (one response at a time), grant at once.
 *
 * <p>Thread-safety: any thread. Cost: O(1); a lock held briefly on HTTP/2 connections only.
 */
public final class OpenFilePermits {
    private OpenFilePermits() {}

    /**
     * Asks for a permit to open a file for the response to {@code request}.
     *
     * @param request the request
     * @param onGranted what to run once a permit is granted, if it is not now: typically, handle the request again
     *     (asking again is then granted at once)
     * @return true if the file may be opened now; false if {@code onGranted} will run when it may
     */
    public static boolean acquire(Request request, Runnable onGranted) {
        Exchange exchange = Exchange.of(request);
        return exchange == null || exchange.stream().acquireFilePermit(onGranted);
    }

    /**
     * @param request the request a permit was granted for
     * @param callback the callback to complete when the response is done with its file
     * @return {@code callback}, giving the permit back first (the file was closed by then)
     */
    public static Callback releasing(Request request, Callback callback) {
        Exchange exchange = Exchange.of(request);
        if (exchange == null) {
            return callback;
        }
        HttpStream stream = exchange.stream();
        return Callback.from(callback, stream::releaseFilePermit, InvocationType.NON_BLOCKING);
    }
}
