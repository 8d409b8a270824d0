package dev.quarry.server.h2;

/** Every test of {@link ConnectionLifecycleTest}, over TLS: HTTP/2 chosen by ALPN on an HTTPS port. */
class ConnectionLifecycleOverTlsTest extends ConnectionLifecycleTest {
    @Override
    boolean overTls() {
        return true;
    }
}
