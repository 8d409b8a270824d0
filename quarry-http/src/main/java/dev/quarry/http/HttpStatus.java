package dev.quarry.http;

/**
 * HTTP status codes (RFC 9110 §15) that Quarry uses, their reason phrases, and the rules that depend on them.
 *
 * <p>Thread-safety: stateless. Cost: every method is O(1), allocation-free.
 */
public final class HttpStatus {
    public static final int CONTINUE_100 = 100;
    public static final int SWITCHING_PROTOCOLS_101 = 101;
    public static final int EARLY_HINTS_103 = 103;
    public static final int OK_200 = 200;
    public static final int CREATED_201 = 201;
    public static final int ACCEPTED_202 = 202;
    public static final int NO_CONTENT_204 = 204;
    public static final int RESET_CONTENT_205 = 205;
    public static final int PARTIAL_CONTENT_206 = 206;
    public static final int MOVED_PERMANENTLY_301 = 301;
    public static final int FOUND_302 = 302;
    public static final int SEE_OTHER_303 = 303;
    public static final int NOT_MODIFIED_304 = 304;
    public static final int TEMPORARY_REDIRECT_307 = 307;
    public static final int PERMANENT_REDIRECT_308 = 308;
    public static final int BAD_REQUEST_400 = 400;
    public static final int UNAUTHORIZED_401 = 401;
    public static final int FORBIDDEN_403 = 403;
    public static final int NOT_FOUND_404 = 404;
    public static final int METHOD_NOT_ALLOWED_405 = 405;
    public static final int NOT_ACCEPTABLE_406 = 406;
    public static final int REQUEST_TIMEOUT_408 = 408;
    public static final int CONFLICT_409 = 409;
    public static final int GONE_410 = 410;
    public static final int LENGTH_REQUIRED_411 = 411;
    public static final int PRECONDITION_FAILED_412 = 412;
    public static final int CONTENT_TOO_LARGE_413 = 413;
    public static final int URI_TOO_LONG_414 = 414;
    public static final int UNSUPPORTED_MEDIA_TYPE_415 = 415;
    public static final int RANGE_NOT_SATISFIABLE_416 = 416;
    public static final int EXPECTATION_FAILED_417 = 417;
    public static final int MISDIRECTED_REQUEST_421 = 421;
    public static final int UNPROCESSABLE_CONTENT_422 = 422;
    public static final int UPGRADE_REQUIRED_426 = 426;
    public static final int PRECONDITION_REQUIRED_428 = 428;
    public static final int TOO_MANY_REQUESTS_429 = 429;
    public static final int REQUEST_HEADER_FIELDS_TOO_LARGE_431 = 431;
    public static final int INTERNAL_SERVER_ERROR_500 = 500;
    public static final int NOT_IMPLEMENTED_501 = 501;
    public static final int BAD_GATEWAY_502 = 502;
    public static final int SERVICE_UNAVAILABLE_503 = 503;
    public static final int GATEWAY_TIMEOUT_504 = 504;
    public static final int HTTP_VERSION_NOT_SUPPORTED_505 = 505;

    private static final String[] REASONS = new String[600];
    // The names of the five classes, RFC 9110 §15: the phrase of a code that has none of its own.
    private static final String[] CLASS_REASONS = {
        "Informational", "Success", "Redirection", "Client Error", "Server Error"
    };

    static {
        reason(CONTINUE_100, "Continue");
        reason(SWITCHING_PROTOCOLS_101, "Switching Protocols");
        reason(EARLY_HINTS_103, "Early Hints");
        reason(OK_200, "OK");
        reason(CREATED_201, "Created");
        reason(ACCEPTED_202, "Accepted");
        reason(203, "Non-Authoritative Information");
        reason(NO_CONTENT_204, "No Content");
        reason(RESET_CONTENT_205, "Reset Content");
        reason(PARTIAL_CONTENT_206, "Partial Content");
        reason(300, "Multiple Choices");
        reason(MOVED_PERMANENTLY_301, "Moved Permanently");
        reason(FOUND_302, "Found");
        reason(SEE_OTHER_303, "See Other");
        reason(NOT_MODIFIED_304, "Not Modified");
        reason(TEMPORARY_REDIRECT_307, "Temporary Redirect");
        reason(PERMANENT_REDIRECT_308, "Permanent Redirect");
        reason(BAD_REQUEST_400, "Bad Request");
        reason(UNAUTHORIZED_401, "Unauthorized");
        reason(402, "Payment Required");
        reason(FORBIDDEN_403, "Forbidden");
        reason(NOT_FOUND_404, "Not Found");
        reason(METHOD_NOT_ALLOWED_405, "Method Not Allowed");
        reason(NOT_ACCEPTABLE_406, "Not Acceptable");
        reason(407, "Proxy Authentication Required");
        reason(REQUEST_TIMEOUT_408, "Request Timeout");
        reason(CONFLICT_409, "Conflict");
        reason(GONE_410, "Gone");
        reason(LENGTH_REQUIRED_411, "Length Required");
        reason(PRECONDITION_FAILED_412, "Precondition Failed");
        reason(CONTENT_TOO_LARGE_413, "Content Too Large");
        reason(URI_TOO_LONG_414, "URI Too Long");
        reason(UNSUPPORTED_MEDIA_TYPE_415, "Unsupported Media Type");
        reason(RANGE_NOT_SATISFIABLE_416, "Range Not Satisfiable");
        reason(EXPECTATION_FAILED_417, "Expectation Failed");
        reason(MISDIRECTED_REQUEST_421, "Misdirected Request");
        reason(UNPROCESSABLE_CONTENT_422, "Unprocessable Content");
        reason(UPGRADE_REQUIRED_426, "Upgrade Required");
        reason(PRECONDITION_REQUIRED_428, "Precondition Required");
        reason(TOO_MANY_REQUESTS_429, "Too Many Requests");
        reason(REQUEST_HEADER_FIELDS_TOO_LARGE_431, "Request Header Fields Too Large");
        reason(INTERNAL_SERVER_ERROR_500, "Internal Server Error");
        reason(NOT_IMPLEMENTED_501, "Not Implemented");
        reason(BAD_GATEWAY_502, "Bad Gateway");
        reason(SERVICE_UNAVAILABLE_503, "Service Unavailable");
        reason(GATEWAY_TIMEOUT_504, "Gateway Timeout");
        reason(HTTP_VERSION_NOT_SUPPORTED_505, "HTTP Version Not Supported");
    }

    private HttpStatus() {}

    private static void reason(int code, String phrase) {
        REASONS[code] = phrase;
    }

    /**
     * The reason phrase of a status code. A valid code that has no registered phrase gets the name of its class
     * (RFC 9110 §15): 299 is "Success", 499 "Client Error", so that a status line or an error body never lacks one.
     *
     * @param code a status code
     * @return its reason phrase; the empty string only for a code outside 100-599 (the reason phrase is optional,
     *     RFC 9112 §4)
     */
    public static String reason(int code) {
        if (!isValid(code)) {
            return "";
        }
        String reason = REASONS[code];
        return reason != null ? reason : CLASS_REASONS[code / 100 - 1];
    }

    /** @return whether {@code code} is a valid three-digit status code, 100-599 (RFC 9110 §15) */
    public static boolean isValid(int code) {
        return code >= 100 && code <= 599;
    }

    /** @return whether {@code code} is informational (1xx) */
    public static boolean isInformational(int code) {
        return code >= 100 && code < 200;
    }

    /** @return whether {@code code} is successful (2xx) */
    public static boolean isSuccess(int code) {
        return code >= 200 && code < 300;
    }

    /** @return whether {@code code} is a client error (4xx) */
    public static boolean isClientError(int code) {
        return code >= 400 && code < 500;
    }

    /** @return whether {@code code} is a server error (5xx) */
    public static boolean isServerError(int code) {
        return code >= 500 && code < 600;
    }

    /**
     * @return whether a response with this code never has content: 1xx, 204 and 304 (RFC 9110 §6.4.1, RFC 9112 §6.3)
     */
    public static boolean hasNoBody(int code) {
        return (code >= 100 && code < 200) || code == NO_CONTENT_204 || code == NOT_MODIFIED_304;
    }
}
