package dev.quarry.server.h2;

/** Every test of {@link IdleConnectionBuffersTest}, over TLS: HTTP/2 chosen by ALPN on an HTTPS port. */
class IdleConnectionBuffersOverTlsTest extends IdleConnectionBuffersTest {
    @Override
    boolean overTls() {
        return true;
    }
}
