package dev.quarry.http.hpack;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/** Hex dumps as the RFC and the corpora print them. */
final class Hex {

    private Hex() {}

    /** @return the octets of {@code hex}, ignoring whitespace */
    static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("\\s+", ""));
    }

    static ByteBuffer buffer(String hex) {
        return ByteBuffer.wrap(bytes(hex));
    }

    static String of(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
