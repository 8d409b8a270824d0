package dev.quarry.server.http1;

import dev.quarry.server.test.Transport;

/** Every test of {@link HttpClientTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class HttpClientOverTlsTest extends HttpClientTest {
    @Override
    protected Transport defaultTransport() {
        return Transport.TLS;
    }
}
