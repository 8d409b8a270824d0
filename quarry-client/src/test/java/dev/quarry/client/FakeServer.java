package dev.quarry.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw socket server that answers with whatever a script writes: for malformed responses and for connections closed
 * at chosen moments, which a real server never produces. Each accepted connection runs {@link Script} on its own
 * virtual thread with the connection's index (0 for the first).
 */
final class FakeServer implements AutoCloseable {
    /** What to do with one connection. */
    interface Script {
        void run(int connection, Socket socket, InputStream in, OutputStream out) throws IOException;
    }

    private final ServerSocket server;
    final AtomicInteger accepted = new AtomicInteger();

    FakeServer(Script script) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    int index = accepted.getAndIncrement();
                    Thread.ofVirtual().start(() -> {
                        try (socket) {
                            script.run(index, socket, socket.getInputStream(), socket.getOutputStream());
                        } catch (IOException ignored) {
                            // the client went away
                        }
                    });
                } catch (IOException x) {
                    return;
                }
            }
        });
    }

    String uri(String path) {
        return "http://127.0.0.1:" + server.getLocalPort() + path;
    }

    /** Reads one request head (up to the empty line); returns it, or null at end of stream. */
    static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            head.append((char) b);
            if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                return head.toString();
            }
        }
        return null;
    }

    static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
