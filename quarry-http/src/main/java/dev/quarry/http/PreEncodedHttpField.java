package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.nio.ByteBuffer;

/**
 * A field that caches its HTTP/1 encoding {@code Name: value\r\n}, so that writing it is one array copy. The server
 * keeps its constant fields in this form ({@code Server}, the current {@code Date}, {@code Content-Type: text/plain}).
 *
 * <p>The name must be a token and the value may contain only visible ISO-8859-1 characters, SP and HTAB (RFC 9110
 * §5.5), checked at construction: CR, LF and NUL can never reach the wire through such a field.
 *
 * <p>Thread-safety: immutable. Cost: construction allocates the encoding once; {@link #writeTo(ByteBuffer)} is one bulk
 * copy.
 */
public final class PreEncodedHttpField extends HttpField {
    private final byte[] encoded;

    /**
     * @param header the well-known field name
     * @param value its value
     * @throws IllegalArgumentException if the value has a character that may not appear in a field value
     */
    public PreEncodedHttpField(HttpHeader header, String value) {
        super(header, header.asString(), value);
        this.encoded = encode(header.asString(), value);
    }

    /**
     * @param name the field name, a token
     * @param value its value
     * @throws IllegalArgumentException if the name is not a token or the value has a character that may not appear in a
     *     field value
     */
    public PreEncodedHttpField(String name, String value) {
        super(HttpHeader.lookup(name).orElse(null), name, value);
        this.encoded = encode(name, value);
    }

    private static byte[] encode(String name, String value) {
        if (!HttpChars.isToken(name)) {
            throw new IllegalArgumentException("field name is not a token: " + HttpChars.quote(name));
        }
        byte[] bytes = new byte[name.length() + 2 + value.length() + 2];
        int i = 0;
        for (int k = 0; k < name.length(); k++) {
            bytes[i++] = (byte) name.charAt(k);
        }
        bytes[i++] = ':';
        bytes[i++] = ' ';
        for (int k = 0; k < value.length(); k++) {
            char c = value.charAt(k);
            if (c > 0xFF || !HttpChars.isFieldContent(c)) {
                throw new IllegalArgumentException("invalid character " + HttpChars.describe(c) + " in value of " + name
                        + ": " + HttpChars.quote(value));
            }
            bytes[i++] = (byte) c;
        }
        bytes[i++] = '\r';
        bytes[i] = '\n';
        return bytes;
    }

    /** @return the number of bytes of {@code Name: value\r\n} */
    public int encodedLength() {
        return encoded.length;
    }

    /**
     * Copies {@code Name: value\r\n} into an array.
     *
     * @param destination the array, with at least {@link #encodedLength()} bytes from {@code offset}
     * @param offset where to copy
     * @return the index after the copied bytes
     */
    public int writeTo(byte[] destination, int offset) {
        System.arraycopy(encoded, 0, destination, offset, encoded.length);
        return offset + encoded.length;
    }

    /**
     * Writes {@code Name: value\r\n}.
     *
     * @param out where to write, at its position
     * @throws java.nio.BufferOverflowException if {@code out} has less than {@link #encodedLength()} bytes left
     */
    public void writeTo(ByteBuffer out) {
        out.put(encoded);
    }
}
