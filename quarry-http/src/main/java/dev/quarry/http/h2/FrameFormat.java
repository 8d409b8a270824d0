package dev.quarry.http.h2;

import java.nio.charset.StandardCharsets;

/** The client connection preface of RFC 9113 3.4 and the frame layout constants shared by parser and generator. */
final class FrameFormat {

    /** {@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n}, 24 octets. */
    static final byte[] CLIENT_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** The frame header: length (24 bits), type, flags, R + stream id (31 bits). */
    static final int FRAME_HEADER_LENGTH = 9;

    static final int FLAG_END_STREAM = 0x1;
    static final int FLAG_ACK = 0x1;
    static final int FLAG_END_HEADERS = 0x4;
    static final int FLAG_PADDED = 0x8;
    static final int FLAG_PRIORITY = 0x20;

    private FrameFormat() {}
}
