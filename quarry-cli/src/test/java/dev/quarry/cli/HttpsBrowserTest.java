package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quarry.io.ServerConnector;
import dev.quarry.server.Server;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo of {@code quarry serve --https-port} in a real browser: Debian's headless Chromium loads it over HTTPS (told
 * to accept the self-signed development certificate) and reports, from the page's own navigation timing, that it
 * spoke HTTP/2 ({@code h2}, chosen by ALPN). Skipped where no Chromium is installed.
 */
class HttpsBrowserTest {
    @TempDir
    Path dir;

    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private Server server;
    private Chromium chromium;
    private DevToolsPage page;

    @AfterEach
    void closeEverything() throws Exception {
        System.clearProperty("quarry.devCert");
        try {
            if (page != null) {
                page.close();
            }
        } finally {
            try {
                if (chromium != null) {
                    chromium.close();
                }
            } finally {
                if (server != null) {
                    server.stop();
                }
            }
        }
    }

    @Test
    void chromiumLoadsTheDemoOverHttpsWithH2() throws Exception {
        Optional<Path> binary = Chromium.binary();
        assumeTrue(binary.isPresent(), "no Chromium: /usr/bin/chromium is missing and $CHROMIUM names none");
        System.setProperty("quarry.devCert", dir.resolve("dev-cert.p12").toString());
        server = ServeCommand.build(Options.parse(
                        List.of("--port", "0", "--host", "127.0.0.1", "--https-port", "0", "--jmx", "off"),
                        ServeCommand.OPTIONS,
                        ServeCommand.FLAGS))
                .start();
        int httpsPort = server.connectors().stream()
                .filter(connector -> connector.describe().startsWith("tls"))
                .mapToInt(ServerConnector::localPort)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no https connector: " + server.connectors()));
        URI demo = URI.create("https://127.0.0.1:" + httpsPort + "/");

        chromium = Chromium.start(binary.get(), Duration.ofSeconds(30), List.of("--ignore-certificate-errors"));
        page = DevToolsPage.connect(http, chromium.pageEndpoint(http, deadline(Duration.ofSeconds(15))));
        page.send("Page.enable", Map.of());
        Map<String, Object> navigated = page.send("Page.navigate", Map.of("url", demo.toString()));
        assertEquals(null, navigated.get("errorText"), "navigation to " + demo);
        page.await(
                "location.href + ' ' + document.readyState",
                (demo + " complete")::equals,
                deadline(Duration.ofSeconds(20)));

        Object protocol = page.evaluate("performance.getEntriesByType('navigation')[0].nextHopProtocol");
        assertEquals("h2", protocol, "the protocol Chromium reports for the page");
        assertTrue(
                server.statistics().http2Requests() >= 1,
                "the server answered over HTTP/2: " + server.statistics().http2Requests());
    }

    private static long deadline(Duration timeout) {
        return System.nanoTime() + timeout.toNanos();
    }
}
