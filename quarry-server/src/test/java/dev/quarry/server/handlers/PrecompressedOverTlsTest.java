package dev.quarry.server.handlers;

/** Every test of {@link PrecompressedTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class PrecompressedOverTlsTest extends PrecompressedTest {
    @Override
    boolean overTls() {
        return true;
    }
}
