package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Filter;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A filter that gives every request an id, to follow it through logs and services: a valid incoming
 * {@code X-Request-Id} is kept (a proxy or client chose it), otherwise a new one is made. The id is set on the response
 * as {@code X-Request-Id} — where the {@link dev.quarry.server.AccessLog} finds it — and as the request attribute
 * {@link #ATTRIBUTE} for the handlers ({@link #of(Request)}).
 *
 * <pre>{@code
 * Server.builder().filter(RequestId.filter())...
 * }</pre>
 *
 * <p>An incoming id is valid if it has 1 to {@value #MAX_LENGTH} visible ASCII characters ({@code !} to {@code ~}):
 * nothing a log line or a header could be abused with. A new id is 16 lowercase hexadecimal digits of a 64-bit
 * random number from {@link ThreadLocalRandom}: no lock, no shared state, and no {@code SecureRandom}, which may wait
 * for entropy; ids are for correlation, not secrets.
 *
 * <p>Non-blocking; thread-safety: stateless.
 */
public final class RequestId implements Filter {
    /** The header field read from the request and set on the response. */
    public static final String HEADER = "X-Request-Id";

    /** The request attribute that holds the id, a {@link String}. */
    public static final String ATTRIBUTE = "dev.quarry.requestId";

    /** The longest incoming id kept. */
    public static final int MAX_LENGTH = 128;

    private static final RequestId INSTANCE = new RequestId();
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private RequestId() {}

    /** @return the filter */
    public static RequestId filter() {
        return INSTANCE;
    }

    /**
     * @param request a request that went through the filter
     * @return its id
     */
    public static Optional<String> of(Request request) {
        return request.attribute(ATTRIBUTE).map(String.class::cast);
    }

    @Override
    public void filter(Request request, Response response, Callback callback, AsyncHandler next) throws Exception {
        String id = request.headers().get(HEADER).filter(RequestId::isValid).orElseGet(RequestId::generate);
        request.attribute(ATTRIBUTE, id);
        response.headers().put(HEADER, id);
        next.handle(request, response, callback);
    }

    /**
     * @param id an incoming id
     * @return whether it is 1 to {@value #MAX_LENGTH} visible ASCII characters
     */
    static boolean isValid(String id) {
        int length = id.length();
        if (length == 0 || length > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = id.charAt(i);
            if (c < '!' || c > '~') {
                return false;
            }
        }
        return true;
    }

    /** @return a new id: 16 hexadecimal digits, random */
    static String generate() {
        long bits = ThreadLocalRandom.current().nextLong();
        char[] id = new char[16];
        for (int i = 15; i >= 0; i--) {
            id[i] = HEX[(int) bits & 0xF];
            bits >>>= 4;
        }
        return new String(id);
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public String toString() {
        return "RequestId";
    }
}
