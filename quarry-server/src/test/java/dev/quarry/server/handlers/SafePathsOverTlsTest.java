package dev.quarry.server.handlers;

/** Every test of {@link SafePathsTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class SafePathsOverTlsTest extends SafePathsTest {
    @Override
    boolean overTls() {
        return true;
    }
}
