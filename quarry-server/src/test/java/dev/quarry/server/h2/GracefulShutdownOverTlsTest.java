package dev.quarry.server.h2;

/** Every test of {@link GracefulShutdownTest}, over TLS: HTTP/2 chosen by ALPN on an HTTPS port. */
class GracefulShutdownOverTlsTest extends GracefulShutdownTest {
    @Override
    boolean overTls() {
        return true;
    }
}
