package dev.quarry.http.h2;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.internal.HttpChars;

/**
 * The HTTP/2 message rules (RFC 9113 8.1-8.3) for the header blocks a server receives: a request head, or trailers.
 * A block that breaks them is a malformed message: a stream error PROTOCOL_ERROR (RFC 9113 8.1.1).
 *
 * <p>The generic field rules (names, values, connection-specific fields, pseudo-header order and repetition) were
 * checked while the block was decoded and arrive as {@link HeaderBlock#malformed()}; these methods add the rules that
 * need the whole block. Extended CONNECT (RFC 8441) is not enabled, so {@code :protocol} is malformed.
 *
 * <p>Thread-safety: stateless. Cost: one pass over the regular fields (identity comparisons) and over
 * {@code :path}'s first character; no allocation but the result, unless a rule is broken.
 */
public final class Http2Messages {
    private Http2Messages() {}

    /**
     * Validates a block that opens a stream: required and allowed pseudo-headers (and CONNECT's special form),
     * non-empty {@code :path} (or {@code *} only for OPTIONS), {@code :authority} consistent with Host, TE only
     * {@code trailers}, a well-formed content-length.
     *
     * <p>A block that was {@linkplain HeaderBlock#tooLarge() too large} lacks fields: answer 431 without calling this.
     *
     * @param streamId the stream, for the error
     * @param block the decoded block
     * @return the request head
     * @throws Http2Exception a stream error PROTOCOL_ERROR naming the rule broken
     */
    public static RequestHead request(int streamId, HeaderBlock block) {
        if (block.malformed().isPresent()) {
            throw malformed(streamId, block.malformed().get());
        }
        String method = block.method();
        if (method == null) {
            throw malformed(streamId, "missing :method (RFC 9113 8.3.1)");
        }
        if (!HttpChars.isToken(method)) {
            throw malformed(streamId, ":method is not a token: " + HttpChars.quote(method) + " (RFC 9113 8.3.1)");
        }
        if (block.status() != null) {
            throw malformed(streamId, "response pseudo-header :status in a request (RFC 9113 8.3)");
        }
        if (block.protocol() != null) {
            throw malformed(
                    streamId,
                    ":protocol " + HttpChars.quote(block.protocol())
                            + " without SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441 4)");
        }
        String scheme = block.scheme();
        String path = block.path();
        String authority = block.authority();
        if (method.equals("CONNECT")) {
            if (scheme != null || path != null) {
                throw malformed(streamId, "CONNECT with :scheme or :path (RFC 9113 8.5)");
            }
            if (authority == null || authority.isEmpty()) {
                throw malformed(streamId, "CONNECT without :authority (RFC 9113 8.5)");
            }
        } else {
            if (scheme == null) {
                throw malformed(streamId, "missing :scheme (RFC 9113 8.3.1)");
            }
            if (!isScheme(scheme)) {
                throw malformed(streamId, "invalid :scheme " + HttpChars.quote(scheme) + " (RFC 3986 3.1)");
            }
            if (path == null) {
                throw malformed(streamId, "missing :path (RFC 9113 8.3.1)");
            }
            checkPath(streamId, method, scheme, path);
        }
        if (authority != null && authority.isEmpty() && isHttp(scheme)) {
            throw malformed(streamId, "empty :authority for an " + scheme + " URI (RFC 9110 4.2.1)");
        }
        if (authority != null && authority.indexOf('@') >= 0 && isHttp(scheme)) {
            throw malformed(streamId, ":authority with userinfo: " + HttpChars.quote(authority) + " (RFC 9113 8.3.1)");
        }
        HttpFields fields = block.fields();
        String host = null;
        long contentLength = -1;
        for (int i = 0, size = fields.size(); i < size; i++) {
            HttpField field = fields.field(i);
            if (field.is(HttpHeader.HOST)) {
                if (host != null) {
                    throw malformed(streamId, "more than one host field (RFC 9110 7.2)");
                }
                host = field.value();
            } else if (field.is(HttpHeader.CONTENT_LENGTH)) {
                long length = contentLength(streamId, field.value());
                if (contentLength >= 0 && contentLength != length) {
                    throw malformed(
                            streamId,
                            "conflicting content-length values " + contentLength + " and " + length
                                    + " (RFC 9110 8.6)");
                }
                contentLength = length;
            }
        }
        if (host != null) {
            if (authority == null) {
                authority = host;
            } else if (!authority.equalsIgnoreCase(host)) {
                throw malformed(
                        streamId,
                        "host " + HttpChars.quote(host) + " differs from :authority " + HttpChars.quote(authority)
                                + " (RFC 9113 8.3.1)");
            }
        }
        return new RequestHead(method, scheme, authority == null ? "" : authority, path, fields, contentLength);
    }

    /**
     * Validates a block that ends a stream after its content: no pseudo-header, and END_STREAM must be set (checked
     * by the caller). As for HTTP/1.1 trailers, a field that must not be a trailer (framing, routing, authentication,
     * see {@link HttpHeader#isForbiddenInTrailer()}) makes the block malformed rather than being dropped.
     *
     * @param streamId the stream, for the error
     * @param block the decoded block
     * @return the trailer fields
     * @throws Http2Exception a stream error PROTOCOL_ERROR naming the rule broken
     */
    public static HttpFields trailers(int streamId, HeaderBlock block) {
        if (block.malformed().isPresent()) {
            throw malformedTrailers(streamId, block.malformed().get());
        }
        if (block.hasPseudoHeaders()) {
            throw malformedTrailers(streamId, "pseudo-header in trailers (RFC 9113 8.1)");
        }
        HttpFields fields = block.fields();
        for (int i = 0, size = fields.size(); i < size; i++) {
            HttpField field = fields.field(i);
            HttpHeader header = field.header().orElse(null);
            if (header != null && header.isForbiddenInTrailer()) {
                throw malformedTrailers(
                        streamId, "field not allowed in trailers: " + field.name() + " (RFC 9110 6.5.1)");
            }
        }
        return fields;
    }

    private static void checkPath(int streamId, String method, String scheme, String path) {
        if (path.isEmpty()) {
            throw malformed(streamId, "empty :path (RFC 9113 8.3.1)");
        }
        if (path.equals("*")) {
            if (!method.equals("OPTIONS")) {
                throw malformed(streamId, ":path \"*\" with method " + method + ", only OPTIONS (RFC 9113 8.3.1)");
            }
            return;
        }
        if (path.charAt(0) != '/' && isHttp(scheme)) {
            throw malformed(streamId, ":path must begin with \"/\": " + HttpChars.quote(path) + " (RFC 9113 8.3.1)");
        }
    }

    private static long contentLength(int streamId, String value) {
        int length = value.length();
        if (length == 0 || length > 18) {
            throw malformed(streamId, "invalid content-length " + HttpChars.quote(value) + " (RFC 9110 8.6)");
        }
        long result = 0;
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                throw malformed(streamId, "invalid content-length " + HttpChars.quote(value) + " (RFC 9110 8.6)");
            }
            result = result * 10 + (c - '0');
        }
        return result;
    }

    private static boolean isHttp(String scheme) {
        return "https".equals(scheme) || "http".equals(scheme);
    }

    /** RFC 3986 3.1: {@code ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )}. */
    private static boolean isScheme(String scheme) {
        int length = scheme.length();
        if (length == 0 || !isAlpha(scheme.charAt(0))) {
            return false;
        }
        for (int i = 1; i < length; i++) {
            char c = scheme.charAt(i);
            if (!isAlpha(c) && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.') {
                return false;
            }
        }
        return true;
    }

    private static boolean isAlpha(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }

    private static Http2Exception malformed(int streamId, String rule) {
        return Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "malformed request: " + rule);
    }

    private static Http2Exception malformedTrailers(int streamId, String rule) {
        return Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "malformed trailers: " + rule);
    }
}
