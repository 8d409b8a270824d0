/**
 * Quarry's HTTP layer: HTTP semantics, the HTTP/1.1 parser and generator, HPACK (RFC 7541) and HTTP/2 frames.
 *
 * <p>No dependency outside the JDK and {@code dev.quarry.core}.
 */
module dev.quarry.http {
    requires dev.quarry.core;

    exports dev.quarry.http.hpack;
}
