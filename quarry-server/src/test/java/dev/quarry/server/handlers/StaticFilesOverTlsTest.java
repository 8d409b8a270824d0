package dev.quarry.server.handlers;

/** Every test of {@link StaticFilesTest}, over TLS (HTTP/1.1 on an HTTPS port). */
class StaticFilesOverTlsTest extends StaticFilesTest {
    @Override
    boolean overTls() {
        return true;
    }
}
