package dev.quarry.bench.peers;

import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpClientTransport;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;

/**
 * Jetty 12's {@code HttpClient} under load: {@code maxConnectionsPerDestination} = {@code -c}; with h2c the HTTP/2
 * transport, which speaks h2c by prior knowledge to an {@code http://} URL. Jetty has no setting for the streams per
 * connection: it multiplexes as many as the server's {@code SETTINGS_MAX_CONCURRENT_STREAMS} allows and opens another
 * connection (up to {@code -c}) when they are all taken, so {@code -m} is the server's limit to set (the client
 * scenario's nginx announces 32). Redirects are not followed; otherwise its defaults.
 */
final class JettyLoadClient implements LoadClient {
    private final HttpClient client;
    private final String uri;

    private JettyLoadClient(HttpClient client, String uri) {
        this.client = client;
        this.uri = uri;
    }

    static JettyLoadClient start(LoadOptions options) throws Exception {
        HttpClientTransport transport =
                options.h2c() ? new HttpClientTransportOverHTTP2(new HTTP2Client()) : new HttpClientTransportOverHTTP();
        HttpClient client = new HttpClient(transport);
        client.setMaxConnectionsPerDestination(options.connections());
        client.setMaxRequestsQueuedPerDestination(Math.max(1024, options.inFlight() * 4));
        client.setFollowRedirects(false);
        client.start();
        return new JettyLoadClient(client, options.uri().toString());
    }

    @Override
    public void send(Completion done) {
        client.newRequest(uri).send(new BufferingResponseListener() {
            @Override
            public void onComplete(Result result) {
                if (result.isFailed()) {
                    done.completed(0, result.getFailure());
                } else {
                    done.completed(result.getResponse().getStatus(), null);
                }
            }
        });
    }

    @Override
    public int sendAndWait() throws Exception {
        ContentResponse response = client.newRequest(uri).send();
        return response.getStatus();
    }

    @Override
    public String state() {
        return client.dump();
    }

    @Override
    public void close() throws Exception {
        client.stop();
    }
}
