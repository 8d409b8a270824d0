package dev.quarry.server.handlers;

import dev.quarry.server.test.Transport;

/** Every test of {@link RequestIdTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class RequestIdOverTlsTest extends RequestIdTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
