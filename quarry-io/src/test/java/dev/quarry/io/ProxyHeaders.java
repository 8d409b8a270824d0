package dev.quarry.io;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/** Builds PROXY protocol headers byte by byte, the way a proxy sends them, for tests. */
final class ProxyHeaders {
    static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

    private ProxyHeaders() {}

    static byte[] v1(String line) {
        return line.getBytes(StandardCharsets.US_ASCII);
    }

    /** A version 2 header: {@code versionCommand} (0x21 PROXY, 0x20 LOCAL), {@code familyTransport} (0x11 TCP4...). */
    static byte[] v2(int versionCommand, int familyTransport, byte[] addresses, byte[]... tlvs) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(addresses);
        for (byte[] tlv : tlvs) {
            body.writeBytes(tlv);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(V2_SIGNATURE);
        out.write(versionCommand);
        out.write(familyTransport);
        out.write(body.size() >>> 8);
        out.write(body.size() & 0xFF);
        out.writeBytes(body.toByteArray());
        return out.toByteArray();
    }

    static byte[] tcp4(int[] source, int[] destination, int sourcePort, int destinationPort) {
        byte[] block = new byte[12];
        for (int i = 0; i < 4; i++) {
            block[i] = (byte) source[i];
            block[4 + i] = (byte) destination[i];
        }
        block[8] = (byte) (sourcePort >>> 8);
        block[9] = (byte) sourcePort;
        block[10] = (byte) (destinationPort >>> 8);
        block[11] = (byte) destinationPort;
        return block;
    }

    static byte[] unix(String source, String destination) {
        byte[] block = new byte[216];
        byte[] s = source.getBytes(StandardCharsets.UTF_8);
        byte[] d = destination.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(s, 0, block, 0, s.length);
        System.arraycopy(d, 0, block, 108, d.length);
        return block;
    }

    static byte[] tlv(int type, byte[] value) {
        byte[] tlv = new byte[3 + value.length];
        tlv[0] = (byte) type;
        tlv[1] = (byte) (value.length >>> 8);
        tlv[2] = (byte) value.length;
        System.arraycopy(value, 0, tlv, 3, value.length);
        return tlv;
    }

    static byte[] tlv(int type, String value) {
        return tlv(type, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Fills in the value of the CRC32C TLV that {@code header} ends with, as a proxy computes it. */
    static byte[] withCrc(byte[] header) {
        CRC32C crc = new CRC32C();
        crc.update(header);
        long value = crc.getValue();
        byte[] out = header.clone();
        int at = out.length - 4;
        out[at] = (byte) (value >>> 24);
        out[at + 1] = (byte) (value >>> 16);
        out[at + 2] = (byte) (value >>> 8);
        out[at + 3] = (byte) value;
        return out;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
