package dev.quarry.server;

import java.util.Objects;
import java.util.Optional;

/**
 * What an {@linkplain ServerBuilder#errorPage(int, Handler) error page} is answering: the status, the short message the
 * plain default error would have shown, and the failure behind it when there is one. The server sets it as a request
 * attribute before it calls the page:
 *
 * <pre>{@code
 * builder.errorPage(404, (request, response) -> {
 *     ErrorInfo error = ErrorInfo.of(request).orElseThrow();
 *     response.send("Sorry: " + error.message() + "\n");
 * });
 * }</pre>
 *
 * The message may quote the request (the path of a 404): escape it before putting it in HTML.
 *
 * @param status the status being answered, 400-599; also the response's status when the page is called
 * @param message a short explanation for the client (never the details of an unexpected exception); it may quote
 *     the request, e.g. the path of a 404
 * @param failure what a handler failed with, if the error comes from a failure
 */
public record ErrorInfo(int status, String message, Optional<Throwable> failure) {

    /** The name of the request attribute that holds the {@code ErrorInfo} while an error page runs. */
    public static final String ATTRIBUTE = ErrorInfo.class.getName();

    /** Validates. */
    public ErrorInfo {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(failure, "failure");
    }

    /**
     * @param request a request, as an error page receives it
     * @return the error the page answers, or empty if the request is not being answered by an error page
     */
    public static Optional<ErrorInfo> of(Request request) {
        return request.attribute(ATTRIBUTE).filter(ErrorInfo.class::isInstance).map(ErrorInfo.class::cast);
    }
}
