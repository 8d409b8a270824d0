package dev.quarry.server.forms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.SetCookie;
import dev.quarry.server.test.RawResponse;
import dev.quarry.server.test.ServerTestBase;
import java.io.OutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Cookies over a real connection: what a handler reads from Cookie fields, and the Set-Cookie fields it adds. */
class CookiesTest extends ServerTestBase {

    @Test
    void aHandlerReadsTheCookiesTheClientSent() throws Exception {
        start(builder -> builder.route(
                "GET /whoami",
                (request, response) -> response.send(
                        request.cookies() + " " + request.cookie("session").orElse("none") + " "
                                + request.cookie("absent").orElse("none"))));

        HttpResponse<String> response = httpClient()
                .send(
                        HttpRequest.newBuilder(uri("/whoami"))
                                .header("Cookie", "session=abc123; theme=\"dark\"; malformed; lang=en")
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

        assertEquals(200, response.statusCode());
        assertEquals("{session=abc123, theme=dark, lang=en} abc123 none", response.body());
    }

    @Test
    void cookiesOfSeveralCookieFieldsAreMerged() throws Exception {
        start(builder -> builder.route(
                "GET /whoami",
                (request, response) -> response.send(request.cookies().toString())));

        RawResponse response = connect()
                .send("GET /whoami HTTP/1.1\r\nHost: test\r\nCookie: a=1; b=2\r\n"
                        + "Cookie: c=3\r\nCookie: a=ignored\r\n\r\n")
                .readResponse();

        assertEquals("{a=1, b=2, c=3}", response.text());
    }

    @Test
    void eachAddedCookieIsItsOwnSetCookieField() throws Exception {
        start(builder -> builder.route("POST /login", (request, response) -> {
            response.addCookie(SetCookie.builder("session", "abc123")
                    .path("/")
                    .maxAge(Duration.ofHours(1))
                    .secure(true)
                    .httpOnly(true)
                    .sameSite(SetCookie.SameSite.LAX)
                    .build());
            response.addCookie(SetCookie.of("theme", "dark"));
            response.send("welcome");
        }));

        HttpResponse<String> response = httpClient()
                .send(
                        HttpRequest.newBuilder(uri("/login"))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

        assertEquals(
                List.of("session=abc123; Path=/; Max-Age=3600; Secure; HttpOnly; SameSite=Lax", "theme=dark"),
                response.headers().allValues("set-cookie"));
    }

    @Test
    void aCookieCannotBeAddedOnceTheResponseIsCommitted() throws Exception {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        start(builder -> builder.route("GET /late", (request, response) -> {
            OutputStream out = response.outputStream();
            out.write("committed".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            try {
                response.addCookie(SetCookie.of("late", "1"));
                failure.complete(null);
            } catch (IllegalStateException x) {
                failure.complete(x);
            }
            out.close();
        }));

        RawResponse response =
                connect().send("GET /late HTTP/1.1\r\nHost: test\r\n\r\n").readResponse();

        assertEquals("committed", response.text());
        assertTrue(response.headerValues("Set-Cookie").isEmpty());
        Throwable x = failure.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(x != null && x.getMessage().contains("cannot add cookie 'late'"), String.valueOf(x));
    }
}
