package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpStatus;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The metrics endpoint: {@code GET .../metrics} answers the Prometheus text exposition format 0.0.4
 * ({@link Server#metrics()}). Non-blocking, like the status page: it only reads counters and writes in place.
 */
final class MetricsHandler implements AsyncHandler {
    private final Supplier<String> metrics;

    /** @param metrics takes the exposition */
    MetricsHandler(Supplier<String> metrics) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        byte[] body = metrics.get().getBytes(StandardCharsets.UTF_8);
        response.status(HttpStatus.OK_200);
        response.headers().put("Content-Type", PrometheusText.CONTENT_TYPE);
        response.headers().put("Cache-Control", "no-store");
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /** @return {@link InvocationType#NON_BLOCKING}: it only computes and writes, in place */
    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public String toString() {
        return "MetricsHandler";
    }
}
