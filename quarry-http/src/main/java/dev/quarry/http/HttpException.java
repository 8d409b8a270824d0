package dev.quarry.http;

/**
 * An error that has an HTTP status to answer with, e.g. 400 for a malformed request or 505 for an unsupported version.
 *
 * <p>The reason names the problem and, where there is one, quotes the offending value (truncated, with control
 * characters escaped), so that it is safe to log and to send back in a response.
 *
 * <p>Thread-safety: immutable.
 */
public class HttpException extends RuntimeException {
    private final int status;
    private final String reason;

    /**
     * @param status the status to answer with, 400-599
     * @param reason what is wrong, naming the offending value
     */
    public HttpException(int status, String reason) {
        this(status, reason, null);
    }

    /**
     * @param status the status to answer with, 400-599
     * @param reason what is wrong, naming the offending value
     * @param cause the underlying failure, or null
     */
    public HttpException(int status, String reason, Throwable cause) {
        super(status + " " + HttpStatus.reason(status) + ": " + reason, cause);
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("not an error status: " + status);
        }
        this.status = status;
        this.reason = reason;
    }

    /** @return the status to answer with */
    public int status() {
        return status;
    }

    /** @return what is wrong, without the status */
    public String reason() {
        return reason;
    }
}
