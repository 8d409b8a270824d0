package dev.quarry.server.http1;

import dev.quarry.server.test.Transport;

/** Every test of {@link Http1StarvationTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class Http1StarvationOverTlsTest extends Http1StarvationTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
