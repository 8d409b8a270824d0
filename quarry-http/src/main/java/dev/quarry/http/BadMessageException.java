package dev.quarry.http;

/**
 * A message that cannot be processed as received: malformed syntax (400), content too large (413), a request target
 * too long (414), header fields too large (431), a transfer coding that is not implemented (501) or an unsupported
 * protocol version (505).
 *
 * <p>After one, the connection answers with {@link #status()} and closes: the framing of whatever follows cannot be
 * trusted, which is the point of rejecting rather than guessing (request smuggling).
 *
 * <p>Thread-safety: immutable.
 */
public class BadMessageException extends HttpException {

    /**
     * @param status the status to answer with, 400-599
     * @param reason what is wrong, naming the offending value
     */
    public BadMessageException(int status, String reason) {
        super(status, reason);
    }

    /** A 400 Bad Request. */
    public BadMessageException(String reason) {
        super(HttpStatus.BAD_REQUEST_400, reason);
    }

    /** A 400 Bad Request caused by another failure. */
    public BadMessageException(String reason, Throwable cause) {
        super(HttpStatus.BAD_REQUEST_400, reason, cause);
    }

    /**
     * @param status the status to answer with, 400-599
     * @param reason what is wrong, naming the offending value
     * @param cause the underlying failure
     */
    public BadMessageException(int status, String reason, Throwable cause) {
        super(status, reason, cause);
    }
}
