package dev.quarry.server.handlers;

/** Every test of {@link CompressionTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class CompressionOverTlsTest extends CompressionTest {
    @Override
    boolean overTls() {
        return true;
    }
}
