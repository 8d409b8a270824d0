package dev.quarry.http;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The HTTP protocol versions Quarry speaks.
 *
 * <p>Thread-safety: immutable. {@link #asBytes()} returns a shared array: do not modify it.
 */
public enum HttpVersion {
    /** HTTP/1.0 (RFC 1945): connections close after each response unless {@code keep-alive} is negotiated. */
    HTTP_1_0("HTTP/1.0", false),
    /** HTTP/1.1 (RFC 9112): connections are persistent unless {@code close} is sent. */
    HTTP_1_1("HTTP/1.1", true),
    /** HTTP/2 (RFC 9113). */
    HTTP_2("HTTP/2.0", true);

    private final String text;
    private final byte[] bytes;
    private final boolean persistentByDefault;

    HttpVersion(String text, boolean persistentByDefault) {
        this.text = text;
        this.bytes = text.getBytes(StandardCharsets.US_ASCII);
        this.persistentByDefault = persistentByDefault;
    }

    /** @return the protocol token as it appears on the wire, e.g. {@code HTTP/1.1} */
    public String asString() {
        return text;
    }

    /** @return the protocol token as US-ASCII bytes; shared, do not modify */
    public byte[] asBytes() {
        return bytes;
    }

    /** @return whether a connection stays open after a message of this version when no Connection field says */
    public boolean persistentByDefault() {
        return persistentByDefault;
    }

    /**
     * @param text a protocol token, e.g. {@code HTTP/1.1} (case-sensitive, RFC 9112 §2.3)
     * @return the version, or empty if Quarry does not know it
     */
    public static Optional<HttpVersion> of(String text) {
        for (HttpVersion version : values()) {
            if (version.text.equals(text)) {
                return Optional.of(version);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return text;
    }
}
