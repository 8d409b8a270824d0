package dev.quarry.http.hpack;

/**
 * Receives the fields of a header block from {@link HpackDecoder}, in the order they appear in the block.
 *
 * <p>Names and values are octet strings: each {@code char} is one octet (ISO-8859-1), so {@code length()} is the
 * octet count. Fields that came from a table are the table's own {@code String} instances: compare them with
 * {@code equals}, keep them as long as needed, and do not rely on identity across blocks.
 *
 * <p>Called on the decoding thread. A sink that throws leaves the decoder part-way through a block: the decoder is then
 * out of step with the peer and the connection must be closed.
 */
@FunctionalInterface
public interface HeaderSink {

    /**
     * One decoded field.
     *
     * @param name the field name, as sent (HPACK does not check case or characters: see
     *     {@link HpackDecoder#isValidHttp2Name})
     * @param value the field value, as sent
     */
    void header(String name, String value);

    /**
     * One decoded field with its representation's never-indexed flag (RFC 7541 6.2.3). An intermediary that re-encodes
     * the field must keep it never-indexed. The default drops the flag and calls {@link #header(String, String)}.
     *
     * @param name the field name
     * @param value the field value
     * @param neverIndexed true if the field arrived as a "literal header field never indexed"
     */
    default void header(String name, String value, boolean neverIndexed) {
        header(name, value);
    }
}
