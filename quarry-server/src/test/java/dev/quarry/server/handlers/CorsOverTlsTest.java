package dev.quarry.server.handlers;

import dev.quarry.server.test.Transport;

/** Every test of {@link CorsTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class CorsOverTlsTest extends CorsTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
