package dev.quarry.server.http1;

import dev.quarry.server.test.Transport;

/** Every test of {@link DateAndServerHeaderTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class DateAndServerHeaderOverTlsTest extends DateAndServerHeaderTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
