package dev.quarry.io;

/**
 * A PROXY protocol header that is not what the specification allows; the message names the problem and the offending
 * value. The connection that sent it is closed: its first bytes cannot be trusted to be anything else.
 */
final class BadProxyHeaderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadProxyHeaderException(String message) {
        super(message, null, false, false); // a peer fault: no stack trace is ever logged, so none is filled in
    }
}
