package dev.quarry.http.h2;

import dev.quarry.http.HttpFields;

/**
 * A valid HTTP/2 request head (RFC 9113 8.3.1).
 *
 * @param method the method
 * @param scheme the scheme ({@code http} or {@code https}), null for CONNECT
 * @param authority the authority, from {@code :authority} or else the Host field, possibly empty
 * @param path the path and query as received ({@code /x?y}, or {@code *} for OPTIONS), null for CONNECT
 * @param fields the regular fields (Host included when it was sent)
 * @param contentLength the content-length field's value, or -1 without one
 */
public record RequestHead(
        String method, String scheme, String authority, String path, HttpFields fields, long contentLength) {}
