package dev.quarry.server;

import java.util.concurrent.atomic.LongAdder;

/**
 * Request counters of a server, by protocol. {@link LongAdder}s: every connection's thread updates them.
 */
public final class ServerStatistics {
    private final LongAdder http1Requests = new LongAdder();
    private final LongAdder http2Requests = new LongAdder();
    private final LongAdder responses1xx = new LongAdder();
    private final LongAdder responses2xx = new LongAdder();
    private final LongAdder responses3xx = new LongAdder();
    private final LongAdder responses4xx = new LongAdder();
    private final LongAdder responses5xx = new LongAdder();
    private final LongAdder aborted = new LongAdder();
    private final LongAdder peerIoFailures = new LongAdder();
    private final LongAdder http1Connections = new LongAdder();
    private final LongAdder http2Connections = new LongAdder();
    private final LongAdder fileTransfers = new LongAdder();
    private final LongAdder fileTransferBytes = new LongAdder();
    private final LongAdder fileResponsesWaited = new LongAdder();

    /** Counts a request of HTTP/1.x. */
    public void onHttp1Request() {
        http1Requests.increment();
    }

    /** Counts a request of HTTP/2. */
    public void onHttp2Request() {
        http2Requests.increment();
    }

    /** Counts a connection that started speaking HTTP/1.x. */
    public void onHttp1Connection() {
        http1Connections.increment();
    }

    /** Counts a connection that started speaking HTTP/2. */
    public void onHttp2Connection() {
        http2Connections.increment();
    }

    /** @param status a committed response status */
    public void onResponse(int status) {
        switch (status / 100) {
            case 1 -> responses1xx.increment();
            case 2 -> responses2xx.increment();
            case 3 -> responses3xx.increment();
            case 4 -> responses4xx.increment();
            default -> responses5xx.increment();
        }
    }

    /** @param status the status of a response counted by {@link #onResponse} whose head could not be sent */
    public void onResponseWithdrawn(int status) {
        switch (status / 100) {
            case 1 -> responses1xx.decrement();
            case 2 -> responses2xx.decrement();
            case 3 -> responses3xx.decrement();
            case 4 -> responses4xx.decrement();
            default -> responses5xx.decrement();
        }
    }

    /** Counts an exchange aborted after its response was committed. */
    public void onAborted() {
        aborted.increment();
    }

    /** A connection failed because of its peer (reset, broken pipe): logged at DEBUG only, counted here. */
    public void onPeerIoFailure() {
        peerIoFailures.increment();
    }

    /** @return connections that failed because of their peer (a reset, a broken pipe), since start */
    public long peerIoFailures() {
        return peerIoFailures.sum();
    }

    /**
     * Counts file content sent zero-copy, from the file to the socket.
     *
     * @param bytes the size of the region
     */
    public void onFileTransfer(long bytes) {
        // Bytes first: whoever sees a transfer counted then finds its bytes counted too.
        fileTransferBytes.add(bytes);
        fileTransfers.increment();
    }

    /**
     * Counts a file response that waited for another response of its HTTP/2 connection to close its file
     * ({@link Http2Config#maxOpenFiles()}).
     */
    public void onFileResponseWaited() {
        fileResponsesWaited.increment();
    }

    /** @return file responses that waited for their connection to have a file fewer open, since start */
    public long fileResponsesWaited() {
        return fileResponsesWaited.sum();
    }

    /** @return file regions sent zero-copy */
    public long fileTransfers() {
        return fileTransfers.sum();
    }

    /** @return bytes sent zero-copy from files */
    public long fileTransferBytes() {
        return fileTransferBytes.sum();
    }

    /** @return HTTP/1.x requests */
    public long http1Requests() {
        return http1Requests.sum();
    }

    /** @return HTTP/2 requests */
    public long http2Requests() {
        return http2Requests.sum();
    }

    /** @return all requests */
    public long requests() {
        return http1Requests.sum() + http2Requests.sum();
    }

    /** @return connections that spoke HTTP/1.x, since start */
    public long http1Connections() {
        return http1Connections.sum();
    }

    /** @return connections that spoke HTTP/2, since start */
    public long http2Connections() {
        return http2Connections.sum();
    }

    /** @return responses per status class, index 0 for 1xx to 4 for 5xx */
    public long[] responsesByClass() {
        return new long[] {
            responses1xx.sum(), responses2xx.sum(), responses3xx.sum(), responses4xx.sum(), responses5xx.sum()
        };
    }

    /** @return exchanges aborted after commit */
    public long aborted() {
        return aborted.sum();
    }
}
