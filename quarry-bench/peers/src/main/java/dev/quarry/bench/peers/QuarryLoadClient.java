package dev.quarry.bench.peers;

import dev.quarry.client.HttpClient;
import dev.quarry.client.HttpRequest;
import dev.quarry.client.HttpResponse;
import java.io.IOException;
import java.util.concurrent.CompletionException;

/**
 * Quarry's client under load: {@code -c} connections per destination, with h2c (by prior knowledge) {@code -m}
 * streams per connection; redirects not followed; otherwise its defaults. The asynchronous mode reads the content in
 * the future's completion, which runs on one of the client's virtual threads.
 */
final class QuarryLoadClient implements LoadClient {
    private final HttpClient client;
    private final HttpRequest request;

    private QuarryLoadClient(HttpClient client, HttpRequest request) {
        this.client = client;
        this.request = request;
    }

    static QuarryLoadClient start(LoadOptions options) {
        HttpClient client = HttpClient.builder()
                .name("quarry-load")
                .maxConnectionsPerDestination(options.connections())
                // Room for every request in flight, so that none is rejected while the pool fills.
                .maxQueuedRequestsPerDestination(Math.max(1024, options.inFlight() * 4))
                .http2(options.h2c())
                .maxStreamsPerConnection(options.streams())
                .maxRedirects(0)
                .build();
        return new QuarryLoadClient(
                client, HttpRequest.newBuilder(options.uri()).GET().build());
    }

    @Override
    public void send(Completion done) {
        client.sendAsync(request).whenComplete((response, failure) -> {
            if (failure != null) {
                done.completed(
                        0, failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
                return;
            }
            int status;
            try (response) {
                response.asBytes();
                status = response.status();
            } catch (IOException | RuntimeException x) {
                done.completed(0, x);
                return;
            }
            done.completed(status, null);
        });
    }

    @Override
    public int sendAndWait() throws Exception {
        try (HttpResponse response = client.send(request)) {
            response.asBytes();
            return response.status();
        }
    }

    @Override
    public String state() {
        return client.statistics().toString();
    }

    @Override
    public void close() {
        client.close();
    }
}
