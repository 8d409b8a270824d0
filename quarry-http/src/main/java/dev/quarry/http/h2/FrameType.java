package dev.quarry.http.h2;

/** The frame types of RFC 9113 section 6, with their codes. */
public enum FrameType {
    DATA(0x0),
    HEADERS(0x1),
    PRIORITY(0x2),
    RST_STREAM(0x3),
    SETTINGS(0x4),
    PUSH_PROMISE(0x5),
    PING(0x6),
    GOAWAY(0x7),
    WINDOW_UPDATE(0x8),
    CONTINUATION(0x9);

    private final int code;

    FrameType(int code) {
        this.code = code;
    }

    /** @return the type code on the wire */
    public int code() {
        return code;
    }
}
