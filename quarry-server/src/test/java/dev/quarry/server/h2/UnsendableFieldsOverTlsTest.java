package dev.quarry.server.h2;

/** Every test of {@link UnsendableFieldsTest}, over TLS: HTTP/2 chosen by ALPN on an HTTPS port. */
class UnsendableFieldsOverTlsTest extends UnsendableFieldsTest {
    @Override
    boolean overTls() {
        return true;
    }
}
