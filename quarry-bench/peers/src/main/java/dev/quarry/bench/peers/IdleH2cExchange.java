package dev.quarry.bench.peers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The HTTP/2 side of {@link IdleClient}'s h2c mode: the bytes a client sends first on an h2c connection with prior
 * knowledge (RFC 9113 section 3.3: the preface, an empty SETTINGS frame and one {@code GET} on stream 1), and the
 * reading of what the server sends back until the connection is set up the way a real client leaves it idle: the
 * server's SETTINGS acknowledged, ours acknowledged by the server, and the response on stream 1 complete.
 *
 * <p>The request's header block uses only static-table indexes and literals without indexing or Huffman coding, so
 * the server's HPACK dynamic table stays empty and no encoder is needed. Response header blocks are not decoded
 * beyond their first field (which must be {@code :status 200}, static index 8).
 *
 * <p>One per connection, confined to the client's thread.
 */
final class IdleH2cExchange {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int FRAME_HEADER = 9;
    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int SETTINGS = 4;
    private static final int GOAWAY = 7;
    private static final int END_STREAM = 0x1;
    private static final int ACK = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int PADDED = 0x8;
    private static final int PRIORITY = 0x20;
    private static final int STATUS_200 = 0x88;

    /** The SETTINGS frame with the ACK flag: what the client answers the server's SETTINGS with. */
    static final byte[] SETTINGS_ACK = frame(SETTINGS, ACK, 0, new byte[0]);

    private int consumed;
    private boolean serverSettingsSeen;
    private boolean ourSettingsAcknowledged;
    private boolean responseComplete;

    /**
     * @param path the request's path
     * @param authority the request's {@code :authority}, host:port
     * @return the preface, an empty SETTINGS frame and a HEADERS frame with {@code GET path} on stream 1
     */
    static byte[] opening(String path, String authority) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.write(0x82); // :method GET, static index 2
        block.write(0x86); // :scheme http, static index 6
        literal(block, 4, path); // :path, name at static index 4
        literal(block, 1, authority); // :authority, name at static index 1
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(PREFACE);
        bytes.writeBytes(frame(SETTINGS, 0, 0, new byte[0]));
        bytes.writeBytes(frame(HEADERS, END_STREAM | END_HEADERS, 1, block.toByteArray()));
        return bytes.toByteArray();
    }

    /**
     * Reads the whole frames in {@code received[consumed, length)}.
     *
     * @param received the bytes received on the connection so far, from its start
     * @param length how many of them there are
     * @return whether the server's SETTINGS frame was among the frames read now (the caller then sends
     *     {@link #SETTINGS_ACK})
     * @throws IOException if the server sent GOAWAY or answered with another status than 200
     */
    boolean read(byte[] received, int length) throws IOException {
        boolean settingsToAcknowledge = false;
        while (length - consumed >= FRAME_HEADER) {
            int at = consumed;
            int payloadLength = (received[at] & 0xff) << 16 | (received[at + 1] & 0xff) << 8 | received[at + 2] & 0xff;
            if (length - at - FRAME_HEADER < payloadLength) {
                break;
            }
            int type = received[at + 3] & 0xff;
            int flags = received[at + 4] & 0xff;
            int stream = ((received[at + 5] & 0x7f) << 24)
                    | (received[at + 6] & 0xff) << 16
                    | (received[at + 7] & 0xff) << 8
                    | received[at + 8] & 0xff;
            int payload = at + FRAME_HEADER;
            consumed = payload + payloadLength;
            if (type == SETTINGS && (flags & ACK) == 0) {
                serverSettingsSeen = true;
                settingsToAcknowledge = true;
            } else if (type == SETTINGS) {
                ourSettingsAcknowledged = true;
            } else if (type == GOAWAY) {
                throw new IOException("GOAWAY from the server: "
                        + new String(received, payload, payloadLength, StandardCharsets.ISO_8859_1));
            } else if (stream == 1 && (type == HEADERS || type == DATA)) {
                if (type == HEADERS && !responseComplete) {
                    int from = payload + ((flags & PADDED) != 0 ? 1 : 0) + ((flags & PRIORITY) != 0 ? 5 : 0);
                    int first = firstFieldByte(received, from);
                    if (first != STATUS_200) {
                        throw new IOException(String.format(
                                "the response on stream 1 is not 200: first header field byte 0x%02x", first));
                    }
                }
                if ((flags & END_STREAM) != 0) {
                    responseComplete = true;
                }
            }
        }
        return settingsToAcknowledge;
    }

    /** @return whether both sides' settings are acknowledged and the response is complete */
    boolean complete() {
        return serverSettingsSeen && ourSettingsAcknowledged && responseComplete;
    }

    /** The first byte of a header block's first field, after any dynamic table size updates (RFC 7541 6.3). */
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

    /** A literal header field without indexing, its name from the static table, its value not Huffman-coded. */
    private static void literal(ByteArrayOutputStream block, int nameIndex, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        block.write(nameIndex); // 0000xxxx: literal without indexing, 4-bit name index (< 15 here)
        block.write(bytes.length); // H = 0, 7-bit length (< 127 here)
        block.writeBytes(bytes);
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        ByteArrayOutputStream frame = new ByteArrayOutputStream(FRAME_HEADER + payload.length);
        frame.write(payload.length >>> 16);
        frame.write(payload.length >>> 8);
        frame.write(payload.length);
        frame.write(type);
        frame.write(flags);
        frame.write(stream >>> 24);
        frame.write(stream >>> 16);
        frame.write(stream >>> 8);
        frame.write(stream);
        frame.writeBytes(payload);
        return frame.toByteArray();
    }
}
