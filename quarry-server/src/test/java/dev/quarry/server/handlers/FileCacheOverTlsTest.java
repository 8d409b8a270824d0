package dev.quarry.server.handlers;

/** Every test of {@link FileCacheTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class FileCacheOverTlsTest extends FileCacheTest {
    @Override
    boolean overTls() {
        return true;
    }
}
