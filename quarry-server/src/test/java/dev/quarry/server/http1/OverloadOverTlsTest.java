package dev.quarry.server.http1;

import dev.quarry.server.test.Transport;

/** Every test of {@link OverloadTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class OverloadOverTlsTest extends OverloadTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
