package dev.quarry.server.tls;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * TLS clients for the certificate tests: JDK sockets that accept any server certificate (the tests look at which one
 * they got), each with a context of its own so that no session is resumed across connections.
 */
final class TlsClients {
    private TlsClients() {}

    /**
     * Connects and completes the handshake.
     *
     * @param port the server's port on 127.0.0.1
     * @param serverName the SNI host name to send, or none
     * @param timeout the socket's read timeout
     * @return the connected socket; the caller closes it
     */
    static SSLSocket connect(int port, Optional<String> serverName, Duration timeout) throws IOException {
        SSLSocket socket = (SSLSocket) trustingAll().getSocketFactory().createSocket("127.0.0.1", port);
        try {
            socket.setSoTimeout((int) timeout.toMillis());
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setServerNames(serverName
                    .<List<javax.net.ssl.SNIServerName>>map(name -> List.of(new SNIHostName(name)))
                    .orElse(List.of()));
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return socket;
        } catch (IOException | RuntimeException x) {
            socket.close();
            throw x;
        }
    }

    /** @return the certificate the server presented on a connection, after its handshake */
    static X509Certificate peerCertificate(int port, Optional<String> serverName, Duration timeout) throws IOException {
        try (SSLSocket socket = connect(port, serverName, timeout)) {
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    /** @return a client context that trusts every server certificate */
    static SSLContext trustingAll() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new TrustingAll()}, null);
            return context;
        } catch (GeneralSecurityException x) {
            throw new IllegalStateException(x);
        }
    }

    /** Accepts whatever certificate the server shows: the tests check which one, not whether it is trusted. */
    private static final class TrustingAll extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

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
