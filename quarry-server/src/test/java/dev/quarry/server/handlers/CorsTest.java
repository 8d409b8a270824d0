package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CorsTest extends ServerTestBase {
    private static final String APP = "https://app.example.com";
    private static final String PREFLIGHT = "OPTIONS /api HTTP/1.1\r\nHost: test\r\nOrigin: %s\r\n"
            + "Access-Control-Request-Method: PUT\r\nAccess-Control-Request-Headers: content-type, x-trace\r\n\r\n";

    private final AtomicInteger handled = new AtomicInteger();

    private void startWith(Cors cors) throws IOException {
        start(builder -> builder.filter(cors).route("/api", (req, res) -> {
            handled.incrementAndGet();
            res.header("X-Request-Id", "r1").send("api\n");
        }));
    }

    private static Cors.Builder app() {
        return Cors.builder()
                .allowOrigins(APP)
                .allowMethods("GET", "PUT")
                .allowHeaders("Content-Type", "X-Trace")
                .exposeHeaders("X-Request-Id")
                .allowCredentials(true)
                .maxAge(Duration.ofMinutes(10));
    }

    private RawResponse send(String request) throws IOException {
        return connect().send(request).readResponse();
    }

    private static String get(String origin) {
        return "GET /api HTTP/1.1\r\nHost: test\r\n" + (origin == null ? "" : "Origin: " + origin + "\r\n") + "\r\n";
    }

    @Test
    void aPreflightFromAnAllowedOriginIsAnswered204WithEveryAllowance() throws IOException {
        startWith(app().build());

        RawResponse response = send(PREFLIGHT.formatted(APP));

        assertEquals(204, response.status());
        assertEquals(APP, response.header("Access-Control-Allow-Origin").orElseThrow());
        assertEquals("GET, PUT", response.header("Access-Control-Allow-Methods").orElseThrow());
        assertEquals(
                "Content-Type, X-Trace",
                response.header("Access-Control-Allow-Headers").orElseThrow());
        assertEquals("true", response.header("Access-Control-Allow-Credentials").orElseThrow());
        assertEquals("600", response.header("Access-Control-Max-Age").orElseThrow());
        assertTrue(response.headerValues("Vary").contains("Origin"), response::toString);
        assertEquals(0, response.body().length);
        assertEquals(0, handled.get(), "the handlers never see a preflight");
    }

    @Test
    void anyHeaderAllowsWhatThePreflightAsksFor() throws IOException {
        startWith(Cors.builder().allowOrigins(APP).allowHeaders("*").build());

        RawResponse response = send(PREFLIGHT.formatted(APP));

        assertEquals(
                "content-type, x-trace",
                response.header("Access-Control-Allow-Headers").orElseThrow());
    }

    @Test
    void aRequestFromAnAllowedOriginGetsItsOriginAndExposedHeaders() throws IOException {
        startWith(app().build());

        RawResponse response = send(get(APP));

        assertEquals(200, response.status());
        assertEquals("api\n", response.text());
        assertEquals(APP, response.header("Access-Control-Allow-Origin").orElseThrow());
        assertEquals("true", response.header("Access-Control-Allow-Credentials").orElseThrow());
        assertEquals(
                "X-Request-Id", response.header("Access-Control-Expose-Headers").orElseThrow());
        assertEquals(List.of("Origin"), response.headerValues("Vary"));
    }

    @Test
    void aDisallowedOriginIsServedWithoutCorsFields() throws IOException {
        startWith(app().build());

        RawResponse response = send(get("https://evil.example"));

        assertEquals(200, response.status());
        assertEquals("api\n", response.text());
        assertFalse(response.header("Access-Control-Allow-Origin").isPresent(), response::toString);
        assertFalse(response.header("Access-Control-Allow-Credentials").isPresent(), response::toString);
        assertEquals(List.of("Origin"), response.headerValues("Vary"));
    }

    @Test
    void aPreflightFromADisallowedOriginGoesToTheHandlersWithoutCorsFields() throws IOException {
        startWith(app().build());

        RawResponse response = send(PREFLIGHT.formatted("https://evil.example"));

        assertEquals(200, response.status());
        assertEquals(1, handled.get());
        assertFalse(response.header("Access-Control-Allow-Origin").isPresent(), response::toString);
        assertFalse(response.header("Access-Control-Allow-Methods").isPresent(), response::toString);
    }

    @Test
    void anyOriginWithoutCredentialsIsAStarThatDoesNotVary() throws IOException {
        startWith(Cors.builder().allowOrigins("*").build());

        RawResponse response = send(get("https://anyone.example"));

        assertEquals("*", response.header("Access-Control-Allow-Origin").orElseThrow());
        assertTrue(response.headerValues("Vary").isEmpty(), response::toString);
    }

    @Test
    void anyOriginWithCredentialsNamesTheOrigin() throws IOException {
        startWith(Cors.builder().allowOrigins("*").allowCredentials(true).build());

        RawResponse response = send(get("https://anyone.example"));

        assertEquals(
                "https://anyone.example",
                response.header("Access-Control-Allow-Origin").orElseThrow());
        assertEquals(List.of("Origin"), response.headerValues("Vary"));
    }

    @Test
    void aRequestWithoutOriginIsNotACorsRequest() throws IOException {
        startWith(app().build());

        RawResponse response = send(get(null));

        assertEquals(200, response.status());
        assertFalse(response.header("Access-Control-Allow-Origin").isPresent(), response::toString);
        assertTrue(response.headerValues("Vary").isEmpty(), response::toString);
    }

    @Test
    void anOriginWithAPathIsRefusedByTheBuilder() {
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowOrigins("https://app.example/"));
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowOrigins("app.example"));
    }
}
