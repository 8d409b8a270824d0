package dev.quarry.server.h2;

/** Every test of {@link StarvationTest}, over TLS: HTTP/2 chosen by ALPN on an HTTPS port. */
class StarvationOverTlsTest extends StarvationTest {
    @Override
    boolean overTls() {
        return true;
    }
}
