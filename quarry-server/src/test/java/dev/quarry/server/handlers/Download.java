package dev.quarry.server.handlers;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * One HTTP/1.1 GET over a plain socket, from a chosen local address (127.0.0.x stand for different clients), timing
 * the first byte and the whole response; the body is checked by length and CRC, never kept.
 *
 * @param status the status code
 * @param headers the response fields, names in lower case
 * @param length body bytes received
 * @param crc the body's CRC-32
 * @param firstByteNanos from sending the request to the first response byte
 * @param totalNanos from sending the request to the last body byte
 */
record Download(int status, Map<String, String> headers, long length, long crc, long firstByteNanos, long totalNanos) {

    static Download get(int port, String path) throws IOException {
        return get("127.0.0.1", port, path);
    }

    static Download get(String localAddress, int port, String path) throws IOException {
        return get(localAddress, port, path, null);
    }

    /**
     * @param onHead run once the head was read (e.g. to start something while the body is in flight), or null
     */
    static Download get(String localAddress, int port, String path, Runnable onHead) throws IOException {
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(30_000);
            socket.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            String request = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
            InputStream in = socket.getInputStream();
            long start = System.nanoTime();
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            int first = in.read();
            long firstByte = System.nanoTime() - start;
            if (first < 0) {
                throw new EOFException("no response");
            }
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            head.write(first);
            while (!endsWithBlankLine(head)) {
                int b = in.read();
                if (b < 0) {
                    throw new EOFException("response head cut: " + head.toString(StandardCharsets.US_ASCII));
                }
                head.write(b);
            }
            String[] lines = head.toString(StandardCharsets.US_ASCII).split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    headers.put(
                            lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                            lines[i].substring(colon + 1).trim());
                }
            }
            if (onHead != null) {
                onHead.run();
            }
            CRC32 crc = new CRC32();
            long length = readBody(in, headers, crc);
            return new Download(status, headers, length, crc.getValue(), firstByte, System.nanoTime() - start);
        }
    }

    private static boolean endsWithBlankLine(ByteArrayOutputStream head) {
        byte[] bytes = head.toByteArray();
        int n = bytes.length;
        return n >= 4 && bytes[n - 4] == '\r' && bytes[n - 3] == '\n' && bytes[n - 2] == '\r' && bytes[n - 1] == '\n';
    }

    private static long readBody(InputStream in, Map<String, String> headers, CRC32 crc) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            long total = 0;
            while (true) {
                String line = readLine(in);
                int size = Integer.parseInt(line.split(";")[0].trim(), 16);
                if (size == 0) {
                    while (!readLine(in).isEmpty()) {
                        // trailers
                    }
                    return total;
                }
                readExactly(in, size, buffer, crc);
                total += size;
                readLine(in);
            }
        }
        String declared = headers.get("content-length");
        if (declared != null) {
            long length = Long.parseLong(declared);
            readExactly(in, length, buffer, crc);
            return length;
        }
        long total = 0;
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            crc.update(buffer, 0, n);
            total += n;
        }
        return total;
    }

    private static void readExactly(InputStream in, long length, byte[] buffer, CRC32 crc) throws IOException {
        long left = length;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new EOFException((length - left) + " of " + length + " body bytes received");
            }
            crc.update(buffer, 0, n);
            left -= n;
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new EOFException("chunked body cut");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
    }

    double seconds() {
        return totalNanos / 1e9;
    }

    double firstByteMillis() {
        return firstByteNanos / 1e6;
    }

    /** @return the CRC-32 of the bytes {@link #payload} produces */
    static long crcOf(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    /** @return {@code size} deterministic bytes that are not all alike */
    static byte[] payload(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (i * 31 + (i >>> 11));
        }
        return bytes;
    }

    @Override
    public String toString() {
        return "Download{" + status + ", " + length + " bytes, first byte " + Math.round(firstByteMillis())
                + " ms, total " + Math.round(totalNanos / 1e6) + " ms, " + headers + "}";
    }
}
