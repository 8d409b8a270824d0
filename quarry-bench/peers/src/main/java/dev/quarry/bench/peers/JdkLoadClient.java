package dev.quarry.bench.peers;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletionException;

/**
 * The JDK's {@code java.net.http.HttpClient} under load, with its defaults but for the version and redirects. It has
 * no connection limit: over HTTP/1.1 it opens one connection per request in flight ({@code -c} of them in the closed
 * loop). It has no h2c by prior knowledge either: asked for HTTP/2 with an {@code http://} URL, it sends its first
 * request as HTTP/1.1 with {@code Upgrade: h2c} and, when the server switches, multiplexes every request on that one
 * connection; a server that does not upgrade (nginx) keeps it on HTTP/1.1, one connection per request in flight.
 * {@code -c} and {@code -m} only set how many requests are in flight.
 */
final class JdkLoadClient implements LoadClient {
    private final HttpClient client;
    private final HttpRequest request;

    private JdkLoadClient(HttpClient client, HttpRequest request) {
        this.client = client;
        this.request = request;
    }

    static JdkLoadClient start(LoadOptions options) {
        HttpClient client = HttpClient.newBuilder()
                .version(options.h2c() ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        return new JdkLoadClient(
                client, HttpRequest.newBuilder(options.uri()).GET().build());
    }

    @Override
    public void send(Completion done) {
        client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).whenComplete((response, failure) -> {
            if (failure != null) {
                done.completed(
                        0, failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
            } else {
                done.completed(response.statusCode(), null);
            }
        });
    }

    @Override
    public int sendAndWait() throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofByteArray()).statusCode();
    }

    @Override
    public void close() {
        client.close();
    }
}
