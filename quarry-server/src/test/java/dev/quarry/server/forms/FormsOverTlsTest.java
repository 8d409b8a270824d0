package dev.quarry.server.forms;

import dev.quarry.server.test.Transport;

/** Every test of {@link FormsTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class FormsOverTlsTest extends FormsTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
