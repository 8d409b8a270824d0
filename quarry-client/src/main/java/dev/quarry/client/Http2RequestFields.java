package dev.quarry.client;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import java.util.OptionalLong;

/**
 * The regular fields of an HTTP/2 request head (RFC 9113 8.3.1): the request's own fields without {@code Host} (the
 * authority travels as {@code :authority}), plus User-Agent, Accept-Encoding and Content-Length as the HTTP/1.1 head
 * adds them. Connection-specific fields are dropped by the frame generator.
 */
final class Http2RequestFields {
    private Http2RequestFields() {}

    /**
     * @param request the request
     * @param length the body's length, or empty if unknown (HTTP/2 frames the content itself: no chunked coding)
     * @param userAgent the User-Agent to add unless the request has one; empty for none
     * @param acceptGzip whether to add {@code Accept-Encoding: gzip}
     * @param cookie the {@code Cookie} value to send in place of the request's own {@code Cookie} fields, or null
     * @return the fields
     */
    static HttpFields of(
            HttpRequest request, OptionalLong length, String userAgent, boolean acceptGzip, String cookie) {
        HttpFields fields = new HttpFields(request.headers().size() + 4);
        boolean agent = false;
        for (HttpField field : request.headers()) {
            if (field.is(HttpHeader.HOST) || (cookie != null && field.is(HttpHeader.COOKIE))) {
                continue;
            }
            agent |= field.is(HttpHeader.USER_AGENT);
            fields.add(field);
        }
        if (!agent && !userAgent.isEmpty()) {
            fields.add(HttpHeader.USER_AGENT, userAgent);
        }
        if (acceptGzip) {
            fields.add(HttpHeader.ACCEPT_ENCODING, "gzip");
        }
        if (cookie != null) {
            fields.add(HttpHeader.COOKIE, cookie);
        }
        if (length.isPresent() && (length.getAsLong() > 0 || expectsContent(request.method()))) {
            fields.add(HttpHeader.CONTENT_LENGTH, Long.toString(length.getAsLong()));
        }
        return fields;
    }

    // RFC 9110 §8.6: a user agent should send Content-Length: 0 with methods that define a meaning for content.
    private static boolean expectsContent(String method) {
        return method.equals("POST") || method.equals("PUT") || method.equals("PATCH");
    }
}
