package dev.quarry.server.forms;

import dev.quarry.server.test.Transport;

/** Every test of {@link MultipartTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class MultipartOverTlsTest extends MultipartTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
