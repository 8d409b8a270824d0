package dev.quarry.http.h2;

/** The error codes of RFC 9113 section 7. */
public enum ErrorCode {
    NO_ERROR(0x0),
    PROTOCOL_ERROR(0x1),
    INTERNAL_ERROR(0x2),
    FLOW_CONTROL_ERROR(0x3),
    SETTINGS_TIMEOUT(0x4),
    STREAM_CLOSED(0x5),
    FRAME_SIZE_ERROR(0x6),
    REFUSED_STREAM(0x7),
    CANCEL(0x8),
    COMPRESSION_ERROR(0x9),
    CONNECT_ERROR(0xa),
    ENHANCE_YOUR_CALM(0xb),
    INADEQUATE_SECURITY(0xc),
    HTTP_1_1_REQUIRED(0xd);

    private static final ErrorCode[] BY_CODE = values();

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    /** @return the code on the wire */
    public int code() {
        return code;
    }

    /**
     * @param code a code received on the wire
     * @return the error code, or {@link #INTERNAL_ERROR} for an unknown one (RFC 9113 7: unknown codes must not
     *     trigger special behaviour; treating them as INTERNAL_ERROR is allowed)
     */
    public static ErrorCode of(long code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[(int) code] : INTERNAL_ERROR;
    }
}
