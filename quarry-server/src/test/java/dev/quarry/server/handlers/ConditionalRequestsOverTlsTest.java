package dev.quarry.server.handlers;

/** Every test of {@link ConditionalRequestsTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class ConditionalRequestsOverTlsTest extends ConditionalRequestsTest {
    @Override
    boolean overTls() {
        return true;
    }
}
