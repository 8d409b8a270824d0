package dev.quarry.cli;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Request;
import dev.quarry.server.Response;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The TechEmpower plaintext endpoint: {@code GET /plaintext} answers {@code Hello, World!} as {@code text/plain},
 * with the server's Server and Date fields. Non-blocking, so it runs in place on the thread that parsed the request.
 */
final class PlaintextApp implements AsyncHandler {
    private static final ByteBuffer BODY =
            ByteBuffer.wrap("Hello, World!".getBytes(StandardCharsets.US_ASCII)).asReadOnlyBuffer();
    private static final PreEncodedHttpField CONTENT_TYPE =
            new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain");

    @Override
    public void handle(Request request, Response response, Callback callback) {
        response.headers().add(CONTENT_TYPE);
        response.write(true, BODY.duplicate(), callback);
    }

    @Override
    public String toString() {
        return "PlaintextApp";
    }

    /** @return {@link InvocationType#NON_BLOCKING}: it only computes and writes, in place */
    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }
}
