package dev.quarry.bench.peers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A minimal HTTP/1.1 client over a plain socket, for tests: it writes raw requests (several at once, to pipeline)
 * and reads responses framed by {@code Content-Length}. Not thread-safe; one per test.
 */
final class Http1Exchange implements AutoCloseable {
    /** A parsed response: status code, headers with lower-case names, body as text. */
    record Response(int status, Map<String, String> headers, String body) {}

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Http1Exchange(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\nConnection: keep-alive\r\n\r\n";
    }

    /** Writes the requests in one write, so that they arrive together (pipelined). */
    void send(String... requests) throws IOException {
        out.write(String.join("", requests).getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    List<Response> read(int count) throws IOException {
        List<Response> responses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            responses.add(readOne());
        }
        return responses;
    }

    private Response readOne() throws IOException {
        String statusLine = readLine();
        if (!statusLine.startsWith("HTTP/1.1 ")) {
            throw new IOException("not an HTTP/1.1 status line: '" + statusLine + "'");
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = readLine(); !line.isEmpty(); line = readLine()) {
            int colon = line.indexOf(':');
            headers.put(
                    line.substring(0, colon).toLowerCase(Locale.ROOT),
                    line.substring(colon + 1).strip());
        }
        String length = headers.get("content-length");
        if (length == null) {
            throw new IOException("response without Content-Length: " + headers);
        }
        byte[] body = in.readNBytes(Integer.parseInt(length));
        return new Response(status, headers, new String(body, StandardCharsets.US_ASCII));
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("connection closed after '" + line.toString(StandardCharsets.US_ASCII) + "'");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
