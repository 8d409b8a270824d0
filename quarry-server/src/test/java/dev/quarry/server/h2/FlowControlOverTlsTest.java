package dev.quarry.server.h2;

/** Every test of {@link FlowControlTest}, over TLS: HTTP/2 chosen by ALPN on an HTTPS port. */
class FlowControlOverTlsTest extends FlowControlTest {
    @Override
    boolean overTls() {
        return true;
    }
}
