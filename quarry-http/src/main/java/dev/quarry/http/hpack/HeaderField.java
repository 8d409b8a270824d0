package dev.quarry.http.hpack;

import java.util.Objects;

/**
 * One header field to encode (or one decoded, for tests and tools).
 *
 * @param name the field name: for HTTP/2, lowercase (RFC 9113 8.2.1); every char at most {@code 0xFF}
 * @param value the field value; every char at most {@code 0xFF}
 * @param sensitive true to send the field as "never indexed" (RFC 7541 6.2.3, 7.1.3) whatever
 *     {@link HpackEncoder}'s own policy says: for secrets the encoder cannot recognise by name
 */
public record HeaderField(String name, String value, boolean sensitive) {

    /** Checks that name and value are present. */
    public HeaderField {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }

    /**
     * A field that the encoder's policy may index.
     *
     * @param name the field name
     * @param value the field value
     */
    public HeaderField(String name, String value) {
        this(name, value, false);
    }

    /** @return the field's size as HPACK and RFC 9113 count it: name + value octets + 32 (RFC 7541 4.1) */
    public int size() {
        return name.length() + value.length() + DynamicTable.ENTRY_OVERHEAD;
    }

    @Override
    public String toString() {
        return name + ": " + value + (sensitive ? " (sensitive)" : "");
    }
}
