package dev.quarry.server.handlers;

/** Every test of {@link Http2FileMappingTest}, over TLS: h2 by ALPN, the frames copied from the mapping encrypted. */
class Http2FileMappingOverTlsTest extends Http2FileMappingTest {
    @Override
    boolean overTls() {
        return true;
    }
}
