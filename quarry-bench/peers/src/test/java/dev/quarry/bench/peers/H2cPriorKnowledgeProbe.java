package dev.quarry.bench.peers;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Sends one {@code GET} over HTTP/2 with prior knowledge (RFC 9113 section 3.3) from hand-made frames, and
 * collects the first byte of the response's first header field and its body. The request's header block uses only
 * static-table indexes and literals without Huffman coding, so no HPACK encoder is needed; the response's header
 * block is not decoded beyond that byte. Not thread-safe; one per test.
 */
final class H2cPriorKnowledgeProbe {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int SETTINGS = 4;
    private static final int GOAWAY = 7;
    private static final int END_STREAM = 0x1;
    private static final int ACK = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int PADDED = 0x8;
    private static final int PRIORITY = 0x20;

    /** What came back: the first byte of the response's first header field, and the body. */
    record Result(int firstHeaderByte, String body) {}

    static Result get(int port, String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            out.write(PREFACE);
            writeFrame(out, SETTINGS, 0, 0, new byte[0]);
            writeFrame(out, HEADERS, END_STREAM | END_HEADERS, 1, requestHeaders(path, "127.0.0.1:" + port));
            out.flush();
            int firstHeaderByte = -1;
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7fffffff;
                byte[] payload = in.readNBytes(length);
                if (type == SETTINGS && (flags & ACK) == 0) {
                    writeFrame(out, SETTINGS, ACK, 0, new byte[0]);
                    out.flush();
                } else if (type == GOAWAY) {
                    throw new IOException("GOAWAY from the server: " + new String(payload, StandardCharsets.US_ASCII));
                } else if (stream == 1 && (type == HEADERS || type == DATA)) {
                    int from = (flags & PADDED) != 0 ? 1 : 0;
                    int to = payload.length - ((flags & PADDED) != 0 ? payload[0] & 0xff : 0);
                    if (type == HEADERS && firstHeaderByte < 0) {
                        // A PRIORITY flag puts 5 bytes of stream dependency and weight first (Vert.x sends it).
                        firstHeaderByte = firstFieldByte(payload, from + ((flags & PRIORITY) != 0 ? 5 : 0));
                    } else if (type == DATA) {
                        body.write(payload, from, to - from);
                    }
                    if ((flags & END_STREAM) != 0) {
                        return new Result(firstHeaderByte, body.toString(StandardCharsets.US_ASCII));
                    }
                }
            }
        }
    }

    /**
     * The first byte of the first header field in a header block, after any dynamic table size updates
     * (RFC 7541 section 6.3: {@code 001xxxxx}, a 5-bit prefix integer) that an encoder may put first.
     */
    private static int firstFieldByte(byte[] block, int at) {
        while ((block[at] & 0xe0) == 0x20) {
            boolean continued = (block[at] & 0x1f) == 0x1f;
            at++;
            while (continued) {
                continued = (block[at] & 0x80) != 0;
                at++;
            }
        }
        return block[at] & 0xff;
    }

    private static byte[] requestHeaders(String path, String authority) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.write(0x82); // :method GET, static index 2
        block.write(0x86); // :scheme http, static index 6
        literal(block, 4, path); // :path, name at static index 4
        literal(block, 1, authority); // :authority, name at static index 1
        return block.toByteArray();
    }

    /** A literal header field without indexing, its name from the static table, its value not Huffman-coded. */
    private static void literal(ByteArrayOutputStream block, int nameIndex, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        block.write(nameIndex); // 0000xxxx: literal without indexing, 4-bit name index (< 15 here)
        block.write(bytes.length); // H = 0, 7-bit length (< 127 here)
        block.writeBytes(bytes);
    }

    private static void writeFrame(OutputStream out, int type, int flags, int stream, byte[] payload)
            throws IOException {
        out.write(new byte[] {
            (byte) (payload.length >>> 16),
            (byte) (payload.length >>> 8),
            (byte) payload.length,
            (byte) type,
            (byte) flags,
            (byte) (stream >>> 24),
            (byte) (stream >>> 16),
            (byte) (stream >>> 8),
            (byte) stream
        });
        out.write(payload);
    }

    private H2cPriorKnowledgeProbe() {}
}
