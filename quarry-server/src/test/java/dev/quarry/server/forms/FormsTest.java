package dev.quarry.server.forms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.InvocationType;
import dev.quarry.http.FormData;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.FormConfig;
import dev.quarry.server.Forms;
import dev.quarry.server.Router;
import dev.quarry.server.test.ServerTestBase;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * URL-encoded forms posted over a real connection with the JDK HttpClient, read by a blocking handler
 * ({@link Forms#read}) and an asynchronous one ({@link Forms#readAsync}): the same answers, the same errors.
 */
class FormsTest extends ServerTestBase {
    private static final FormConfig SMALL = FormConfig.DEFAULT.withMaxSize(100);

    @BeforeEach
    void startServer() throws Exception {
        Router router = new Router();
        router.route("POST /blocking", (request, response) -> response.send(describe(Forms.read(request, SMALL))));
        router.route(
                "POST /async",
                AsyncHandler.of(
                        InvocationType.NON_BLOCKING,
                        (request, response, callback) -> Forms.readAsync(request, SMALL)
                                .whenComplete((form, failure) -> {
                                    if (failure != null) {
                                        callback.failed(
                                                failure instanceof CompletionException x ? x.getCause() : failure);
                                    } else {
                                        byte[] text = describe(form).getBytes(StandardCharsets.UTF_8);
                                        response.write(true, ByteBuffer.wrap(text), callback);
                                    }
                                })));
        start(builder -> builder.handler(router));
    }

    private static String describe(FormData form) {
        return form.asMap().toString();
    }

    private HttpResponse<String> post(String path, String contentType, byte[] body, boolean chunked) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
                .POST(
                        chunked
                                ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return httpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return post(path, "application/x-www-form-urlencoded", body.getBytes(StandardCharsets.UTF_8), false);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/blocking", "/async"})
    void readsTheFieldsOfAPostedForm(String path) throws Exception {
        HttpResponse<String> response = post(path, "name=Ada+Lovelace&lang=en&lang=fr&price=%E2%82%AC5&empty=");

        assertEquals(200, response.statusCode(), response.body());
        assertEquals("{name=[Ada Lovelace], lang=[en, fr], price=[\u20ac5], empty=[]}", response.body());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/blocking", "/async"})
    void readsAChunkedFormAndOneWithoutContentType(String path) throws Exception {
        assertEquals(
                "{a=[1]}",
                post(path, null, "a=1".getBytes(StandardCharsets.US_ASCII), true)
                        .body());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/blocking", "/async"})
    void decodesWithTheCharsetOfTheContentType(String path) throws Exception {
        HttpResponse<String> response = post(
                path,
                "application/x-www-form-urlencoded; charset=ISO-8859-1",
                "caf%E9=cr%E8me".getBytes(StandardCharsets.US_ASCII),
                false);

        assertEquals("{caf\u00e9=[cr\u00e8me]}", response.body());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/blocking", "/async"})
    void aMalformedPercentEscapeIs400NamingIt(String path) throws Exception {
        HttpResponse<String> response = post(path, "ok=1&bad=%G1");

        assertEquals(400, response.statusCode());
        assertTrue(response.body().contains("invalid percent-encoding in form field: \"bad=%G1\""), response.body());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/blocking", "/async"})
    void aBodyOverTheLimitIs413WithOrWithoutContentLength(String path) throws Exception {
        byte[] big = ("a=" + "x".repeat(200)).getBytes(StandardCharsets.US_ASCII);
        for (boolean chunked : new boolean[] {false, true}) {
            HttpResponse<String> response = post(path, "application/x-www-form-urlencoded", big, chunked);

            assertEquals(413, response.statusCode(), "chunked " + chunked);
            assertTrue(response.body().contains("form body larger than 100 bytes"), response.body());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/blocking", "/async"})
    void anotherMediaTypeIs415(String path) throws Exception {
        HttpResponse<String> response = post(path, "application/json", "{}".getBytes(StandardCharsets.US_ASCII), false);

        assertEquals(415, response.statusCode());
        assertTrue(response.body().contains("expected application/x-www-form-urlencoded, not application/json"));
        assertEquals(
                415,
                post(path, "application/x-www-form-urlencoded; charset=x-unknown", new byte[0], false)
                        .statusCode());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/blocking", "/async"})
    void aMalformedContentTypeIs400(String path) throws Exception {
        assertEquals(
                400,
                post(path, "form", "a=1".getBytes(StandardCharsets.US_ASCII), false)
                        .statusCode());
    }
}
