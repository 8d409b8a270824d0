/**
 * Quarry's HTTP layer: the HTTP model shared by HTTP/1.1, HTTP/2 and the server (versions, methods, status codes,
 * fields, compliance modes, request targets), the strict, allocation-light HTTP/1.1 parser and generator, and HPACK
 * (RFC 7541).
 *
 * <p>No dependency outside the JDK and {@code dev.quarry.core}.
 */
module dev.quarry.http {
    requires transitive dev.quarry.core; // its public types (Dumpable, buffers) appear in this module's API

    exports dev.quarry.http;
    exports dev.quarry.http.h1;
    exports dev.quarry.http.hpack;
    exports dev.quarry.http.h2;
}
