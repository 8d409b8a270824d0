package dev.quarry.http.h2;

import dev.quarry.http.hpack.HeaderField;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackOutput;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** Builders of raw frames and header blocks for tests: what a peer puts on the wire, right or wrong. */
final class Frames {
    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int PRIORITY = 0x2;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int PUSH_PROMISE = 0x5;
    static final int PING = 0x6;
    static final int GOAWAY = 0x7;
    static final int WINDOW_UPDATE = 0x8;
    static final int CONTINUATION = 0x9;

    static final int END_STREAM = 0x1;
    static final int ACK = 0x1;
    static final int END_HEADERS = 0x4;
    static final int PADDED = 0x8;
    static final int PRIORITY_FLAG = 0x20;

    static final byte[] PREFACE = FrameFormat.CLIENT_PREFACE.clone();

    private Frames() {}

    /** A frame with the payload as given; the length field is the payload's length. */
    static byte[] frame(int type, int flags, int streamId, byte[] payload) {
        return frame(payload.length, type, flags, streamId, payload);
    }

    /** A frame whose length field says {@code length}, whatever the payload. */
    static byte[] frame(int length, int type, int flags, int streamId, byte[] payload) {
        byte[] frame = new byte[9 + payload.length];
        frame[0] = (byte) (length >>> 16);
        frame[1] = (byte) (length >>> 8);
        frame[2] = (byte) length;
        frame[3] = (byte) type;
        frame[4] = (byte) flags;
        frame[5] = (byte) (streamId >>> 24);
        frame[6] = (byte) (streamId >>> 16);
        frame[7] = (byte) (streamId >>> 8);
        frame[8] = (byte) streamId;
        System.arraycopy(payload, 0, frame, 9, payload.length);
        return frame;
    }

    static byte[] bytes(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }

    static byte[] int32(int value) {
        return bytes(value >>> 24, value >>> 16, value >>> 8, value);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    static byte[] zeros(int length) {
        return new byte[length];
    }

    /** A SETTINGS payload of id/value pairs. */
    static byte[] settings(long... idValues) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < idValues.length; i += 2) {
            int id = (int) idValues[i];
            int value = (int) idValues[i + 1];
            out.writeBytes(bytes(id >>> 8, id));
            out.writeBytes(int32(value));
        }
        return frame(SETTINGS, 0, 0, out.toByteArray());
    }

    static byte[] emptySettings() {
        return frame(SETTINGS, 0, 0, new byte[0]);
    }

    static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("\\s+", ""));
    }

    /** Encodes fields given as name, value, name, value... exactly as given. */
    static byte[] block(HpackEncoder encoder, String... nameValues) {
        HpackOutput out = new HpackOutput();
        encoder.encode(fields(nameValues), out);
        return out.toByteArray();
    }

    static List<HeaderField> fields(String... nameValues) {
        List<HeaderField> fields = new ArrayList<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            fields.add(new HeaderField(nameValues[i], nameValues[i + 1]));
        }
        return fields;
    }

    /** The fields of a minimal valid GET. */
    static String[] get(String path) {
        return new String[] {":method", "GET", ":scheme", "https", ":authority", "example.com", ":path", path};
    }

    static String[] with(String[] base, String... more) {
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    static ByteBuffer buffer(byte[] bytes) {
        return ByteBuffer.wrap(bytes);
    }
}
