package dev.quarry.server.h2;

/** Every test of {@link AbuseLimitsTest}, over TLS: HTTP/2 chosen by ALPN on an HTTPS port. */
class AbuseLimitsOverTlsTest extends AbuseLimitsTest {
    @Override
    boolean overTls() {
        return true;
    }
}
