/**
 * HPACK, the header compression of HTTP/2 (RFC 7541): {@link dev.quarry.http.hpack.HpackDecoder} and
 * {@link dev.quarry.http.hpack.HpackEncoder}, one of each per connection, confined to one thread at a time.
 *
 * <p>Header names and values are octet strings held in {@code String}s with one octet per {@code char}
 * (ISO-8859-1), so that {@code length()} is the octet count that HPACK and HTTP/2 limits measure.
 */
package dev.quarry.http.hpack;
