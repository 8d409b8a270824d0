package dev.quarry.server.internal.h2;

import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;
import java.nio.ByteBuffer;
import java.util.Base64;

/**
 * The {@code HTTP2-Settings} field of an {@code Upgrade: h2c} request (RFC 7540 3.2.1): the payload of a SETTINGS frame
 * in base64url without padding.
 */
final class Http2UpgradeSettings {
    private Http2UpgradeSettings() {}

    /**
     * @param value the field value
     * @return the decoded payload
     * @throws IllegalArgumentException if it is not base64url or not a whole number of 6-byte settings
     */
    static byte[] payload(String value) {
        byte[] payload = Base64.getUrlDecoder().decode(value.trim());
        if (payload.length % 6 != 0) {
            throw new IllegalArgumentException("HTTP2-Settings is " + payload.length + " bytes, not a multiple of 6");
        }
        return payload;
    }

    /**
     * @param payload a SETTINGS payload
     * @return the settings
     * @throws Http2Exception if a value is invalid
     */
    static Http2Settings decode(byte[] payload) {
        Http2Settings settings = new Http2Settings();
        ByteBuffer buffer = ByteBuffer.wrap(payload);
        while (buffer.remaining() >= 6) {
            int id = buffer.getShort() & 0xFFFF;
            long value = buffer.getInt() & 0xFFFFFFFFL;
            if (id == Http2Settings.INITIAL_WINDOW_SIZE && value > Integer.MAX_VALUE) {
                throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "INITIAL_WINDOW_SIZE " + value);
            }
            if (id == Http2Settings.MAX_FRAME_SIZE
                    && (value < Http2Settings.DEFAULT_MAX_FRAME_SIZE || value > Http2Settings.MAX_MAX_FRAME_SIZE)) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "MAX_FRAME_SIZE " + value);
            }
            settings.set(id, value);
        }
        return settings;
    }
}
