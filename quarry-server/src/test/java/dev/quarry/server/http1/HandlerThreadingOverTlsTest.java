package dev.quarry.server.http1;

import dev.quarry.server.test.Transport;

/** Every test of {@link HandlerThreadingTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class HandlerThreadingOverTlsTest extends HandlerThreadingTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
