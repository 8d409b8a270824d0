package dev.quarry.server.internal;

import dev.quarry.http.HttpFields;

/**
 * The committed head of a response, handed to the protocol once.
 *
 * <p>Each {@link ServerResponse} owns one and refills it at every commit (a commit allocates nothing): a stream reads
 * it during {@link HttpStream#send} or {@link HttpStream#sendFile} only, and keeps no reference to it afterwards.
 *
 * <p>Thread-safety: written by the committing thread before the send, read by the stream in the same call.
 */
public final class ResponseHead {
    private int status;
    private HttpFields fields;
    private long contentLength;

    /**
     * @param status the status code
     * @param fields the header fields (the response's own object, no longer modified)
     * @param contentLength the content length if known (-1 otherwise)
     */
    public ResponseHead(int status, HttpFields fields, long contentLength) {
        set(status, fields, contentLength);
    }

    /** Refills the head for the next commit of its response. */
    void set(int status, HttpFields fields, long contentLength) {
        this.status = status;
        this.fields = fields;
        this.contentLength = contentLength;
    }

    /** @return the status code */
    public int status() {
        return status;
    }

    /** @return the header fields (the response's own object, no longer modified) */
    public HttpFields fields() {
        return fields;
    }

    /** @return the content length if known (-1 otherwise) */
    public long contentLength() {
        return contentLength;
    }

    @Override
    public String toString() {
        return "ResponseHead[status=" + status + ", contentLength=" + contentLength + ", fields=" + fields + "]";
    }
}
