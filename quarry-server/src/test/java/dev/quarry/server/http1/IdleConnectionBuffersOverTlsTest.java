package dev.quarry.server.http1;

import dev.quarry.server.test.Transport;

/** Every test of {@link IdleConnectionBuffersTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class IdleConnectionBuffersOverTlsTest extends IdleConnectionBuffersTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
