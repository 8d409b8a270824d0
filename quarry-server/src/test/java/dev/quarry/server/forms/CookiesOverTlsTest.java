package dev.quarry.server.forms;

import dev.quarry.server.test.Transport;

/** Every test of {@link CookiesTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class CookiesOverTlsTest extends CookiesTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
