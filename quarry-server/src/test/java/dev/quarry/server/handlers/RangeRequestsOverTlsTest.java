package dev.quarry.server.handlers;

/** Every test of {@link RangeRequestsTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class RangeRequestsOverTlsTest extends RangeRequestsTest {
    @Override
    boolean overTls() {
        return true;
    }
}
