package dev.quarry.http.h2;

import java.util.Objects;

/**
 * An HTTP/2 protocol error: either a connection error (the connection is closed with GOAWAY carrying the code) or a
 * stream error (the stream is reset with RST_STREAM). The message names the problem and the offending value.
 */
public class Http2Exception extends RuntimeException {
    private final ErrorCode error;
    private final int streamId;

    /**
     * @param error the error code
     * @param streamId the stream for a stream error, 0 for a connection error
     * @param message what is wrong
     */
    public Http2Exception(ErrorCode error, int streamId, String message) {
        super(message);
        this.error = Objects.requireNonNull(error, "error");
        this.streamId = streamId;
    }

    /** @return the error code */
    public ErrorCode error() {
        return error;
    }

    /** @return the stream, or 0 for a connection error */
    public int streamId() {
        return streamId;
    }

    /** @return whether the whole connection must be closed */
    public boolean isConnectionError() {
        return streamId == 0;
    }

    /**
     * @param error the code
     * @param message what is wrong
     * @return a connection error
     */
    public static Http2Exception connection(ErrorCode error, String message) {
        return new Http2Exception(error, 0, message);
    }

    /**
     * @param streamId the stream
     * @param error the code
     * @param message what is wrong
     * @return a stream error
     */
    public static Http2Exception stream(int streamId, ErrorCode error, String message) {
        if (streamId <= 0) {
            throw new IllegalArgumentException("a stream error needs a stream id > 0, not " + streamId);
        }
        return new Http2Exception(error, streamId, message);
    }

    @Override
    public String toString() {
        return (isConnectionError() ? "connection error " : "stream " + streamId + " error ") + error + ": "
                + getMessage();
    }
}
