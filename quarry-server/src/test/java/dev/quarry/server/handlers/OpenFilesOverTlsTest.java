package dev.quarry.server.handlers;

/** Every test of {@link OpenFilesTest}, over TLS (the file kept open is read and encrypted, not transferred). */
class OpenFilesOverTlsTest extends OpenFilesTest {
    @Override
    boolean overTls() {
        return true;
    }
}
