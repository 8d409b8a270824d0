package dev.quarry.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Server;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@code redirectToHttps()}: clear-text requests are answered with 308 to the same URL on the HTTPS port. */
class HttpsRedirectTest extends ServerTestBase {
    private final AtomicInteger handled = new AtomicInteger();

    private void startRedirecting() throws IOException {
        TestCertificates certificates = TestCertificates.ec();
        start(builder -> builder.https(
                        "127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD))
                .redirectToHttps()
                .route("GET /{*}", (request, response) -> {
                    handled.incrementAndGet();
                    response.send("served over " + request.scheme());
                }));
    }

    private int httpsPort() {
        return server.connectors().get(1).localPort();
    }

    @Test
    void aClearTextRequestIsRedirectedWithItsPathAndQuery() throws Exception {
        startRedirecting();
        HttpClient client = httpClient(); // follows no redirect
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(uri("/docs/a%20b?x=1&y=%2F")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(308, response.statusCode());
        assertEquals(
                "https://127.0.0.1:" + httpsPort() + "/docs/a%20b?x=1&y=%2F",
                response.headers().firstValue("Location").orElseThrow());
        assertEquals(0, handled.get(), "no handler runs for a redirected request");
    }

    @Test
    void aPostIsRedirectedWith308SoThatItStaysAPost() throws Exception {
        startRedirecting();
        HttpResponse<String> response = httpClient()
                .send(
                        HttpRequest.newBuilder(uri("/form"))
                                .POST(HttpRequest.BodyPublishers.ofString("a=1"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(308, response.statusCode());
        assertEquals(
                "https://127.0.0.1:" + httpsPort() + "/form",
                response.headers().firstValue("Location").orElseThrow());
    }

    @Test
    void theHostKeepsItsNameAndGetsTheHttpsPort() throws Exception {
        startRedirecting();
        RawResponse named = connect()
                .send("GET /a?b HTTP/1.1\r\nHost: www.example.com:8080\r\n\r\n")
                .readResponse();
        assertEquals(308, named.status());
        assertEquals(
                "https://www.example.com:" + httpsPort() + "/a?b",
                named.header("Location").orElseThrow());

        RawResponse ipv6 =
                connect().send("GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n").readResponse();
        assertEquals(
                "https://[::1]:" + httpsPort() + "/", ipv6.header("Location").orElseThrow());
    }

    @Test
    void aRequestWithoutHostIsSentToTheServersAddress() throws Exception {
        startRedirecting();
        RawResponse response = connect().send("GET /old HTTP/1.0\r\n\r\n").readResponse();
        assertEquals(308, response.status());
        assertEquals(
                "https://127.0.0.1:" + httpsPort() + "/old",
                response.header("Location").orElseThrow());
    }

    @Test
    void theHttpsListenerServesAsUsual() throws Exception {
        startRedirecting();
        HttpClient client = track(HttpClient.newBuilder()
                .sslContext(TestCertificates.ec().clientContext())
                .connectTimeout(WAIT)
                .build());
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + httpsPort() + "/x"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertEquals("served over https", response.body());
    }

    @Test
    void aRedirectNeedsAnHttpsListener() {
        IllegalStateException refused = assertThrows(
                IllegalStateException.class,
                () -> Server.builder()
                        .http(0)
                        .redirectToHttps()
                        .route("GET /", (request, response) -> response.send("x"))
                        .build());
        assertTrue(refused.getMessage().contains("https"), refused::getMessage);
    }
}
