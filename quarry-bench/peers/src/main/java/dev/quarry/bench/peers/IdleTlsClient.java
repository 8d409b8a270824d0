package dev.quarry.bench.peers;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The client of the tls scenario's idle-connections row: opens TLS connections one after another (HTTP/1.1 by
 * ALPN), sends one {@code GET /plaintext} on each and reads its response, then keeps them all open and idle.
 *
 * <p>{@code java -cp quarry-peers.jar dev.quarry.bench.peers.IdleTlsClient --port N [--host H] [--connections 10000]
 * [--open-seconds 300] [--hold-seconds 600]}
 *
 * <p>Prints {@code READY established=N failed=F pending=0 elapsed-ms=T} once all are open (or {@code open-seconds}
 * passed), the same line as {@link IdleClient}, then holds them until {@code hold-seconds} passed or it is killed.
 * Connecting one at a time keeps the server's accept queue short; a handshake takes a few milliseconds, so 10,000
 * take well under a minute. The certificate is not checked: the scenario makes a throwaway one for loopback.
 * Exits 1 if no connection could be established.
 *
 * <p>One thread; not thread-safe.
 */
public final class IdleTlsClient {
    private IdleTlsClient() {}

    /**
     * @param args the options, see the class comment
     * @throws Exception if the TLS context cannot be made
     */
    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = -1;
        int connections = 10_000;
        long openSeconds = 300;
        long holdSeconds = 600;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--host" -> host = value;
                case "--port" -> port = Integer.parseInt(value);
                case "--connections" -> connections = Integer.parseInt(value);
                case "--open-seconds" -> openSeconds = Long.parseLong(value);
                case "--hold-seconds" -> holdSeconds = Long.parseLong(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (port < 0) {
            throw new IllegalArgumentException("--port N is required");
        }
        List<SSLSocket> open = openAll(
                new InetSocketAddress(host, port), connections, TimeUnit.SECONDS.toNanos(openSeconds), System.out);
        if (open.isEmpty()) {
            System.exit(1);
        }
        try {
            Thread.sleep(TimeUnit.SECONDS.toMillis(holdSeconds));
        } finally {
            System.out.printf(Locale.ROOT, "DONE established=%d%n", open.size());
            for (SSLSocket socket : open) {
                socket.close();
            }
        }
    }

    /**
     * Opens the connections and prints the READY line.
     *
     * @return the sockets that answered their request, left open for the caller
     */
    static List<SSLSocket> openAll(InetSocketAddress address, int connections, long openNanos, PrintStream out)
            throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {new TrustingManager()}, null);
        byte[] request = ("GET " + Plaintext.PATH + " HTTP/1.1\r\nHost: " + address.getHostString() + ":"
                        + address.getPort() + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        List<SSLSocket> open = new ArrayList<>(connections);
        int failed = 0;
        long start = System.nanoTime();
        for (int i = 0; i < connections && System.nanoTime() - start < openNanos; i++) {
            SSLSocket socket = null;
            try {
                socket = (SSLSocket) context.getSocketFactory().createSocket();
                var parameters = socket.getSSLParameters();
                parameters.setApplicationProtocols(new String[] {"http/1.1"});
                socket.setSSLParameters(parameters);
                socket.setSoTimeout(10_000);
                socket.connect(address, 10_000);
                socket.getOutputStream().write(request);
                socket.getOutputStream().flush();
                readResponse(socket.getInputStream());
                open.add(socket);
            } catch (IOException e) {
                failed++;
                if (failed <= 3) {
                    out.println("connection " + i + " failed: " + e);
                }
                if (socket != null) {
                    try {
                        socket.close();
                    } catch (IOException ignored) {
                        // already failed; the count says so
                    }
                }
            }
        }
        out.printf(
                Locale.ROOT,
                "READY established=%d failed=%d pending=0 elapsed-ms=%d%n",
                open.size(),
                failed,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        out.flush();
        return open;
    }

    /** Reads one response to the end of its body (the plaintext body: the head ends, then 13 bytes). */
    private static void readResponse(InputStream in) throws IOException {
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed before the response head ended");
            }
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        for (int i = 0; i < Plaintext.bodyLength(); i++) {
            if (in.read() < 0) {
                throw new IOException("connection closed before the response body ended");
            }
        }
    }

    /** Trusts any certificate: the scenario's server has a throwaway self-signed one on loopback. */
    private static final class TrustingManager implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
