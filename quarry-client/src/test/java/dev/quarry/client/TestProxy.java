package dev.quarry.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A small HTTP proxy on loopback, on virtual threads: {@code CONNECT host:port} opens a tunnel that relays bytes both
 * ways; a request in absolute-form is forwarded to its origin in origin-form, and the answers relayed back. It records
 * each request line it gets, and may require {@code Proxy-Authorization}.
 */
final class TestProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String requiredAuthorization;
    /** Every request line received, with {@code " +auth"} when it came with the required credentials. */
    final Queue<String> requests = new ConcurrentLinkedQueue<>();

    /** @param requiredAuthorization the {@code Proxy-Authorization} value to require, or null for none */
    TestProxy(String requiredAuthorization) throws IOException {
        this.requiredAuthorization = requiredAuthorization;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Thread.ofVirtual().start(() -> serve(client));
                } catch (IOException x) {
                    return;
                }
            }
        });
    }

    int port() {
        return server.getLocalPort();
    }

    private void serve(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            String head = FakeServer.readHead(in);
            if (head == null) {
                return;
            }
            String line = head.substring(0, head.indexOf("\r\n"));
            boolean authorized = requiredAuthorization == null
                    || head.contains("\r\nProxy-Authorization: " + requiredAuthorization + "\r\n");
            requests.add(line + (authorized && requiredAuthorization != null ? " +auth" : ""));
            if (!authorized) {
                FakeServer.write(
                        out,
                        "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\n"
                                + "Content-Length: 0\r\n\r\n");
                return;
            }
            String[] parts = line.split(" ");
            if (parts[0].equals("CONNECT")) {
                String authority = parts[1];
                int colon = authority.lastIndexOf(':');
                try (Socket origin = connect(authority.substring(0, colon), authority.substring(colon + 1))) {
                    FakeServer.write(out, "HTTP/1.1 200 Connection Established\r\n\r\n");
                    relay(client, origin, in);
                }
                return;
            }
            // Absolute-form: http://host:port/path
            java.net.URI uri = java.net.URI.create(parts[1]);
            try (Socket origin = connect(uri.getHost(), Integer.toString(uri.getPort()))) {
                OutputStream toOrigin = origin.getOutputStream();
                Thread.ofVirtual().start(() -> copy(origin, client));
                while (head != null) {
                    String requestLine = head.substring(0, head.indexOf("\r\n"));
                    String[] request = requestLine.split(" ");
                    java.net.URI target = java.net.URI.create(request[1]);
                    String rest =
                            head.substring(head.indexOf("\r\n")).replaceAll("(?i)\r\nProxy-Authorization: [^\r]*", "");
                    FakeServer.write(toOrigin, request[0] + " " + target.getRawPath() + " " + request[2] + rest);
                    head = FakeServer.readHead(in);
                    if (head != null) {
                        requests.add(head.substring(0, head.indexOf("\r\n")));
                    }
                }
            }
        } catch (IOException x) {
            // a side went away
        }
    }

    private static Socket connect(String host, String port) throws IOException {
        String address = host.toLowerCase(Locale.ROOT).equals("localhost") ? "127.0.0.1" : host;
        return new Socket(address, Integer.parseInt(port));
    }

    /** Relays the tunnel both ways until either side ends. */
    private static void relay(Socket client, Socket origin, InputStream fromClient) throws IOException {
        Thread back = Thread.ofVirtual().start(() -> copy(origin, client));
        try {
            fromClient.transferTo(origin.getOutputStream());
        } finally {
            origin.shutdownOutput();
            try {
                back.join();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void copy(Socket from, Socket to) {
        try {
            from.getInputStream().transferTo(to.getOutputStream());
            to.shutdownOutput();
        } catch (IOException x) {
            // a side went away
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
