package dev.quarry.client;

import dev.quarry.http.HttpField;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * Writes the head of an HTTP/1.1 request (RFC 9112 §3): request line in origin-form (absolute-form to a forwarding
 * proxy), Host, fields, framing.
 */
final class RequestHead {
    private RequestHead() {}

    /**
     * @param request the request; its field values were validated when it was built
     * @param length the body's length, or empty for chunked
     * @param userAgent the User-Agent to add unless the request has one; empty for none
     * @param acceptGzip whether to add {@code Accept-Encoding: gzip} (the request has no Accept-Encoding of its own
     *     and the client decodes gzip content for the application)
     * @return the head, CRLF CRLF included
     */
    static byte[] encode(HttpRequest request, OptionalLong length, String userAgent, boolean acceptGzip) {
        return encode(request, length, userAgent, acceptGzip, null, null, null);
    }

    /**
     * @param http2Settings the {@code HTTP2-Settings} value of an h2c upgrade offer (RFC 7540 3.2), or null for none
     * @param cookie the {@code Cookie} value to write in place of the request's own {@code Cookie} fields, or null
     * @param proxy the proxy that forwards the request, or null: the target is then in absolute-form (RFC 9112
     *     §3.2.2), with the proxy's {@code Proxy-Authorization} if it has credentials
     * @see #encode(HttpRequest, OptionalLong, String, boolean)
     */
    static byte[] encode(
            HttpRequest request,
            OptionalLong length,
            String userAgent,
            boolean acceptGzip,
            String http2Settings,
            String cookie,
            HttpProxy proxy) {
        StringBuilder head = new StringBuilder(128);
        head.append(request.method()).append(' ');
        if (proxy != null) {
            head.append(request.origin()); // scheme://authority
        }
        head.append(request.target())
                .append(" HTTP/1.1\r\nHost: ")
                .append(request.origin().authority())
                .append("\r\n");
        boolean agent = false;
        for (HttpField field : request.headers()) {
            if (cookie != null && field.is("Cookie")) {
                continue;
            }
            agent |= field.is("User-Agent");
            head.append(field.name()).append(": ").append(field.value()).append("\r\n");
        }
        if (cookie != null) {
            head.append("Cookie: ").append(cookie).append("\r\n");
        }
        String proxyAuthorization = proxy != null ? proxy.authorizationOrNull() : null;
        if (proxyAuthorization != null) {
            head.append("Proxy-Authorization: ").append(proxyAuthorization).append("\r\n");
        }
        if (!agent && !userAgent.isEmpty()) {
            head.append("User-Agent: ").append(userAgent).append("\r\n");
        }
        if (acceptGzip) {
            head.append("Accept-Encoding: gzip\r\n");
        }
        if (http2Settings != null) {
            head.append("Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: ")
                    .append(http2Settings)
                    .append("\r\n");
        }
        if (length.isEmpty()) {
            head.append("Transfer-Encoding: chunked\r\n");
        } else if (length.getAsLong() > 0 || expectsContent(request.method())) {
            head.append("Content-Length: ").append(length.getAsLong()).append("\r\n");
        }
        head.append("\r\n");
        return head.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    // RFC 9110 §8.6: a user agent should send Content-Length: 0 with methods that define a meaning for content.
    private static boolean expectsContent(String method) {
        return method.equals("POST") || method.equals("PUT") || method.equals("PATCH");
    }
}
