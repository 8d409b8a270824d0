package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpException;
import dev.quarry.http.HttpStatus;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.IntSupplier;
import java.util.regex.Pattern;

/**
 * Answers every request of a clear-text listener with {@code 308 Permanent Redirect} to the same URL over HTTPS
 * ({@link ServerBuilder#redirectToHttps()}): the host the client asked for (its port replaced by the HTTPS port, left
 * out when that is 443), the same path and query. 308 rather than 301 so that a POST stays a POST (RFC 9110 §15.4.9).
 * Non-blocking: it only formats a header.
 *
 * <p>Thread-safety: immutable.
 */
final class HttpsRedirect implements AsyncHandler {
    // A host as RFC 3986 allows it in an authority: a registered name or IPv4 address, or an IP literal in brackets.
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._~%!$&'()*+,;=-]+|\\[[0-9A-Fa-f:.]+]");
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final IntSupplier httpsPort;

    /**
     * @param httpsPort the port of the HTTPS listener, read per request (it is known once the server started); 0 while
     *     it is not known, which is answered 503
     */
    HttpsRedirect(IntSupplier httpsPort) {
        this.httpsPort = Objects.requireNonNull(httpsPort, "httpsPort");
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        int port = httpsPort.getAsInt();
        if (port <= 0) {
            callback.failed(
                    new HttpException(HttpStatus.SERVICE_UNAVAILABLE_503, "the HTTPS listener is not started yet"));
            return;
        }
        String location = location(request.authority(), request.localAddress(), request.target(), port);
        if (location == null) {
            callback.failed(new HttpException(
                    HttpStatus.BAD_REQUEST_400, "no usable host to redirect to: " + request.authority()));
            return;
        }
        response.status(HttpStatus.PERMANENT_REDIRECT_308);
        response.headers().put("Location", location);
        response.headers().put("Content-Length", "0");
        response.write(true, EMPTY.duplicate(), callback);
    }

    /**
     * @param authority the authority of the request ({@code host[:port]}), empty if it named none
     * @param local the server's address of the connection
     * @param target the request target
     * @param port the HTTPS port
     * @return where to redirect the request; null if its host is not usable in a URL
     */
    static String location(String authority, SocketAddress local, String target, int port) {
        String host = host(authority, local);
        return host == null ? null : "https://" + host + (port == 443 ? "" : ":" + port) + pathAndQuery(target);
    }

    /** @return the host the client asked for, without its port; the server's address if it named none; null if bad */
    private static String host(String authority, SocketAddress address) {
        String host;
        if (authority == null || authority.isEmpty()) {
            if (!(address instanceof InetSocketAddress local)) {
                return null;
            }
            host = local.getAddress().getHostAddress();
            return host.contains(":") ? "[" + host + "]" : host;
        }
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            authority = authority.substring(at + 1); // userinfo never goes into the redirect
        }
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            host = close < 0 ? authority : authority.substring(0, close + 1);
        } else {
            int colon = authority.indexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
        }
        return HOST.matcher(host).matches() ? host : null;
    }

    /** @return the path and query of a request target, still encoded; {@code /} for {@code *} or an empty path */
    static String pathAndQuery(String target) {
        if (target.startsWith("/")) {
            return target;
        }
        int scheme = target.indexOf("://");
        if (scheme < 0) {
            return "/"; // asterisk-form, authority-form
        }
        int start = scheme + 3;
        int end = start;
        while (end < target.length() && target.charAt(end) != '/' && target.charAt(end) != '?') {
            end++;
        }
        String rest = target.substring(end);
        return rest.startsWith("/") ? rest : "/" + rest;
    }

    /** @return {@link InvocationType#NON_BLOCKING}: it formats one header and writes, in place */
    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public String toString() {
        return "HttpsRedirect{port=" + httpsPort.getAsInt() + "}";
    }
}
