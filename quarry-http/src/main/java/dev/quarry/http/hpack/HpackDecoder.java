package dev.quarry.http.hpack;

import dev.quarry.core.Dumpable;
import dev.quarry.http.internal.ThreadScratch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Decodes HPACK header blocks (RFC 7541) into a {@link HeaderSink}, one complete block (the concatenated fragments of a
 * HEADERS or PUSH_PROMISE frame and its CONTINUATIONs) at a time, keeping the dynamic table in step with the peer's
 * encoder.
 *
 * <p><b>Thread-safety:</b> none. One decoder per HTTP/2 connection, used by one thread at a time (the thread that
 * owns the connection's reads); blocks must be decoded in the order they arrived.
 *
 * <p><b>Cost:</b> O(n) in the block length. A field taken from the static or dynamic table is handed over as the
 * table's own {@code String} instances (no allocation); a literal string is built once from its octets; a Huffman
 * string is decoded into a reused scratch array, then built once. A block in a direct or read-only buffer is first
 * copied into a reused array.
 *
 * <p><b>Limits:</b> {@link HpackLimits} bounds the decoded header list (size and field count: a stream error, see
 * {@link HeaderListTooLargeException}) and the length of a single string (a connection error). The dynamic table is
 * bounded by {@link #setMaxTableSize}, our {@code SETTINGS_HEADER_TABLE_SIZE}.
 *
 * <p><b>Errors:</b> after an {@link HpackCompressionException}, or after the sink threw, the decoder is out of step with
 * the peer; further calls throw {@link IllegalStateException}. After a {@link HeaderListTooLargeException} it is
 * intact.
 */
public final class HpackDecoder implements Dumpable {

    /** The initial {@code SETTINGS_HEADER_TABLE_SIZE} of HTTP/2 (RFC 9113 6.5.2). */
    public static final int DEFAULT_MAX_TABLE_SIZE = 4096;

    /** Scratch arrays up to this size are kept between blocks; larger ones are dropped after use. */
    private static final int RETAINED_SCRATCH = 8 * 1024;

    private static final byte[] NO_BYTES = new byte[0];
    /**
     * The scratch arrays a block is decoded with, lent by the thread for the block, so that an idle connection keeps
     * none; on a virtual thread the decoder keeps its own, as before.
     */
    private static final ThreadScratch BLOCK_SCRATCH = new ThreadScratch(256);

    private static final ThreadScratch HUFFMAN_SCRATCH = new ThreadScratch(256);

    private final DynamicTable table;
    private final HpackLimits limits;
    /** Our SETTINGS_HEADER_TABLE_SIZE: the largest size a dynamic table size update may ask for. */
    private int maxTableSize;
    /**
     * The largest size that satisfies a pending required update (RFC 7541 4.2): set when {@link #setMaxTableSize}
     * went below the table's current maximum, so the peer's next block must start with an update at most this large.
     * -1 when no update is required.
     */
    private int requiredUpdate = -1;

    private byte[] huffmanScratch = NO_BYTES;
    private byte[] blockScratch = NO_BYTES;
    /** Why the decoder is unusable, or null. */
    private String failure;

    private long blocks;

    // The block being decoded.
    private byte[] buf;
    private int start;
    private int pos;
    private int end;

    /** A decoder with a 4096-octet table limit and {@link HpackLimits#DEFAULT} limits. */
    public HpackDecoder() {
        this(DEFAULT_MAX_TABLE_SIZE, HpackLimits.DEFAULT);
    }

    /**
     * @param maxTableSize our {@code SETTINGS_HEADER_TABLE_SIZE}; also the table's initial maximum size, as HTTP/2
     *     starts both at the same value (4096 unless the connection's first SETTINGS said otherwise)
     * @param limits the limits against oversized header lists
     */
    public HpackDecoder(int maxTableSize, HpackLimits limits) {
        if (maxTableSize < 0) {
            throw new IllegalArgumentException("maxTableSize must not be negative: " + maxTableSize);
        }
        this.maxTableSize = maxTableSize;
        this.table = new DynamicTable(maxTableSize);
        this.limits = limits;
    }

    /**
     * Changes the largest dynamic table the peer's encoder may use: our {@code SETTINGS_HEADER_TABLE_SIZE}.
     *
     * <p>RFC 9113 applies a SETTINGS value when the peer acknowledges it, but the peer may use a larger table as soon
     * as it has read our SETTINGS. So raise the limit when sending the SETTINGS frame, and lower it when its ACK
     * arrives. If the new limit is below the table's current maximum size, the peer's next block must begin with a
     * dynamic table size update no larger than the smallest limit set since its last block (RFC 7541 4.2), or the
     * decoder rejects it.
     *
     * @param maxTableSize the new limit, in octets
     */
    public void setMaxTableSize(int maxTableSize) {
        if (maxTableSize < 0) {
            throw new IllegalArgumentException("maxTableSize must not be negative: " + maxTableSize);
        }
        this.maxTableSize = maxTableSize;
        if (maxTableSize < table.maxSize()) {
            requiredUpdate = requiredUpdate < 0 ? maxTableSize : Math.min(requiredUpdate, maxTableSize);
        }
    }

    /** @return the largest dynamic table the peer's encoder may use: our {@code SETTINGS_HEADER_TABLE_SIZE} */
    public int maxTableSize() {
        return maxTableSize;
    }

    /** @return the limits this decoder enforces */
    public HpackLimits limits() {
        return limits;
    }

    /** @return the dynamic table's maximum size, as last set by the peer's dynamic table size update */
    public int tableMaxSize() {
        return table.maxSize();
    }

    /** @return the dynamic table's current size in octets (entries' name + value + 32) */
    public int tableSize() {
        return table.size();
    }

    /** @return the number of entries in the dynamic table */
    public int tableLength() {
        return table.length();
    }

    /** @return the dynamic table's entries, newest first, as {@code name: value} (for tests and diagnostics) */
    String[] tableEntries() {
        return table.entries();
    }

    /** @return the number of blocks decoded so far, including those that were too large */
    public long blocks() {
        return blocks;
    }

    /**
     * Decodes one complete header block, handing each field to {@code sink} in order.
     *
     * <p>Consumes the buffer from its position to its limit; on success its position is its limit. The buffer is only
     * read during this call.
     *
     * @param block the header block
     * @param sink receives the fields; once the header list exceeds the limits it receives no more fields of this block
     * @throws HpackCompressionException if the block is malformed or holds a string longer than the limit: a
     *     connection error, the decoder must not be used again
     * @throws HeaderListTooLargeException after the whole block was decoded, if its header list exceeded the limits: a
     *     stream error, the decoder stays usable
     * @throws IllegalStateException if an earlier block left the decoder unusable
     */
    public void decode(ByteBuffer block, HeaderSink sink) throws HpackException {
        if (failure != null) {
            throw new IllegalStateException("HPACK decoder is unusable after an earlier error: " + failure);
        }
        int length = block.remaining();
        byte[] lentBlock = BLOCK_SCRATCH.get();
        byte[] lentHuffman = lentBlock == null ? null : HUFFMAN_SCRATCH.get();
        if (lentBlock != null) {
            blockScratch = lentBlock;
            huffmanScratch = lentHuffman;
        }
        if (block.hasArray()) {
            buf = block.array();
            start = block.arrayOffset() + block.position();
        } else {
            if (blockScratch.length < length) {
                blockScratch = new byte[length];
            }
            block.get(block.position(), blockScratch, 0, length);
            buf = blockScratch;
            start = 0;
        }
        pos = start;
        end = start + length;
        HeaderListTooLargeException tooLarge;
        boolean done = false;
        try {
            tooLarge = decodeBlock(sink);
            done = true;
        } catch (HpackCompressionException x) {
            failure = x.getMessage();
            throw x;
        } finally {
            if (!done && failure == null) {
                failure = "the header sink threw";
            }
            buf = null;
            if (lentBlock != null) {
                // Back to the thread, grown if this block needed more (within the retained size); the decoder keeps
                // no reference, since its next block may be decoded on another thread.
                returnScratch(BLOCK_SCRATCH, lentBlock, blockScratch);
                returnScratch(HUFFMAN_SCRATCH, lentHuffman, huffmanScratch);
                blockScratch = NO_BYTES;
                huffmanScratch = NO_BYTES;
            }
            if (blockScratch.length > RETAINED_SCRATCH) {
                blockScratch = NO_BYTES;
            }
            if (huffmanScratch.length > RETAINED_SCRATCH) {
                huffmanScratch = NO_BYTES;
            }
        }
        blocks++;
        block.position(block.limit());
        if (tooLarge != null) {
            throw tooLarge;
        }
    }

    private static void returnScratch(ThreadScratch scratch, byte[] lent, byte[] used) {
        if (used != lent && used.length <= RETAINED_SCRATCH) {
            scratch.keep(used);
        }
    }

    private HeaderListTooLargeException decodeBlock(HeaderSink sink) throws HpackCompressionException {
        boolean fieldSeen = false;
        long listSize = 0;
        int fieldCount = 0;
        String overLimit = null;
        while (pos < end) {
            int first = buf[pos] & 0xFF;
            if ((first & 0xE0) == 0x20) {
                sizeUpdate(fieldSeen);
                continue;
            }
            if (!fieldSeen) {
                fieldSeen = true;
                if (requiredUpdate >= 0) {
                    throw errorAt(
                            pos,
                            "the block must begin with a dynamic table size update to at most " + requiredUpdate
                                    + " octets, as SETTINGS_HEADER_TABLE_SIZE was lowered to " + maxTableSize
                                    + ", but it begins with a field representation 0x" + Integer.toHexString(first));
                }
            }
            String name;
            String value;
            boolean neverIndexed = false;
            if (first >= 0x80) {
                // Indexed header field (RFC 7541 6.1).
                int at = pos;
                int index = readInteger(7);
                if (index == 0) {
                    throw errorAt(at, "indexed header field with index 0");
                }
                name = nameAt(index, at);
                value = valueAt(index);
            } else if (first >= 0x40) {
                // Literal header field with incremental indexing (RFC 7541 6.2.1).
                name = literalName(6);
                value = readString();
                table.add(name, value);
            } else {
                // Literal header field without indexing (0000) or never indexed (0001) (RFC 7541 6.2.2, 6.2.3).
                neverIndexed = first >= 0x10;
                name = literalName(4);
                value = readString();
            }
            fieldCount++;
            listSize += name.length() + value.length() + DynamicTable.ENTRY_OVERHEAD;
            if (overLimit == null) {
                if (listSize > limits.maxHeaderListSize()) {
                    overLimit = "header list size exceeds " + limits.maxHeaderListSize() + " octets at field "
                            + fieldCount + " (" + name + ")";
                } else if (fieldCount > limits.maxFieldCount()) {
                    overLimit = "header list has more than " + limits.maxFieldCount() + " fields";
                } else {
                    sink.header(name, value, neverIndexed);
                }
            }
        }
        if (overLimit == null) {
            return null;
        }
        return new HeaderListTooLargeException(
                overLimit + ": " + fieldCount + " fields, " + listSize + " octets in all", listSize, fieldCount);
    }

    private void sizeUpdate(boolean fieldSeen) throws HpackCompressionException {
        int at = pos;
        if (fieldSeen) {
            throw errorAt(at, "dynamic table size update after a header field; updates must begin the block");
        }
        int size = readInteger(5);
        if (size > maxTableSize) {
            throw errorAt(
                    at,
                    "dynamic table size update to " + size + " octets exceeds SETTINGS_HEADER_TABLE_SIZE "
                            + maxTableSize);
        }
        table.setMaxSize(size);
        if (requiredUpdate >= 0 && size <= requiredUpdate) {
            requiredUpdate = -1;
        }
    }

    private String literalName(int prefixBits) throws HpackCompressionException {
        int at = pos;
        int index = readInteger(prefixBits);
        return index == 0 ? readString() : nameAt(index, at);
    }

    private String nameAt(int index, int at) throws HpackCompressionException {
        if (index <= StaticTable.LENGTH) {
            return StaticTable.name(index);
        }
        int dynamic = index - StaticTable.LENGTH;
        if (dynamic > table.length()) {
            throw errorAt(
                    at,
                    "index " + index + " is beyond the tables: " + StaticTable.LENGTH + " static + " + table.length()
                            + " dynamic entries");
        }
        return table.name(dynamic);
    }

    /** Only after {@link #nameAt} accepted {@code index}. */
    private String valueAt(int index) {
        return index <= StaticTable.LENGTH ? StaticTable.value(index) : table.value(index - StaticTable.LENGTH);
    }

    /**
     * Reads an integer with an N-bit prefix (RFC 7541 5.1) starting at the current octet, whose flag bits above the
     * prefix are ignored. Rejects values beyond {@code Integer.MAX_VALUE} and encodings with more than 5 continuation
     * octets (enough for any 31-bit value), as RFC 7541 5.1 allows.
     */
    private int readInteger(int prefixBits) throws HpackCompressionException {
        int at = pos;
        int mask = (1 << prefixBits) - 1;
        int value = buf[pos++] & mask;
        if (value < mask) {
            return value;
        }
        long total = value;
        for (int shift = 0; ; shift += 7) {
            if (pos == end) {
                throw errorAt(at, "truncated integer: the block ends inside its continuation octets");
            }
            int octet = buf[pos++] & 0xFF;
            total += (long) (octet & 0x7F) << shift;
            if (total > Integer.MAX_VALUE) {
                throw errorAt(at, "integer overflow: value exceeds " + Integer.MAX_VALUE);
            }
            if ((octet & 0x80) == 0) {
                return (int) total;
            }
            if (shift == 28) {
                throw errorAt(at, "integer encoding longer than 5 continuation octets");
            }
        }
    }

    /** Reads a string literal (RFC 7541 5.2). */
    private String readString() throws HpackCompressionException {
        int at = pos;
        if (pos == end) {
            throw errorAt(at, "truncated field: the block ends where a string length was expected");
        }
        boolean huffman = (buf[pos] & 0x80) != 0;
        int length = readInteger(7);
        if (length > end - pos) {
            throw errorAt(at, "truncated string: length " + length + " but only " + (end - pos) + " octets remain");
        }
        int maxLength = limits.maxStringLength();
        String result;
        if (length == 0) {
            result = "";
        } else if (!huffman) {
            if (length > maxLength) {
                throw errorAt(at, "string of " + length + " octets exceeds the limit of " + maxLength);
            }
            result = new String(buf, pos, length, StandardCharsets.ISO_8859_1);
        } else {
            // Each decoded octet takes at most 30 bits, so this many input octets decode to more than the limit.
            if ((long) length * 8 / 30 > maxLength) {
                throw errorAt(at, "Huffman string of " + length + " octets decodes beyond the limit of " + maxLength);
            }
            int capacity = HuffmanDecoder.maxDecodedLength(length);
            if (huffmanScratch.length < capacity) {
                huffmanScratch = new byte[Math.max(capacity, Math.min(2 * huffmanScratch.length, RETAINED_SCRATCH))];
            }
            int decoded;
            try {
                decoded = HuffmanDecoder.decode(buf, pos, length, huffmanScratch);
            } catch (HpackCompressionException x) {
                throw errorAt(at, x.getMessage());
            }
            if (decoded > maxLength) {
                throw errorAt(at, "Huffman string decodes to " + decoded + " octets, beyond the limit of " + maxLength);
            }
            result = new String(huffmanScratch, 0, decoded, StandardCharsets.ISO_8859_1);
        }
        pos += length;
        return result;
    }

    private HpackCompressionException errorAt(int at, String message) {
        return new HpackCompressionException(
                message + " (at octet " + (at - start) + " of a " + (end - start) + "-octet block)");
    }

    /**
     * Checks a field name against RFC 9113 8.2.1: a non-empty token (RFC 9110 5.1) without uppercase letters, or a
     * pseudo-header name ({@code ':'} followed by such a token). HPACK itself accepts any octets; an HTTP/2 layer
     * treats a name failing this check as a malformed message (a stream error).
     *
     * @param name a decoded field name
     * @return true if {@code name} may appear in an HTTP/2 field section
     */
    public static boolean isValidHttp2Name(CharSequence name) {
        int length = name.length();
        int i = length > 0 && name.charAt(0) == ':' ? 1 : 0;
        if (i == length) {
            return false;
        }
        for (; i < length; i++) {
            char c = name.charAt(i);
            if (c >= 128 || !TOKEN_LOWERCASE[c]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Checks a field value against RFC 9113 8.2.1: no NUL, CR or LF, and no leading or trailing space or horizontal
     * tab.
     *
     * @param value a decoded field value
     * @return true if {@code value} may appear in an HTTP/2 field section
     */
    public static boolean isValidHttp2Value(CharSequence value) {
        int length = value.length();
        if (length == 0) {
            return true;
        }
        char first = value.charAt(0);
        char last = value.charAt(length - 1);
        if (first == ' ' || first == '\t' || last == ' ' || last == '\t') {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c == 0 || c == '\r' || c == '\n') {
                return false;
            }
        }
        return true;
    }

    /** tchar of RFC 9110 5.6.2, without the uppercase letters that RFC 9113 8.2.1 forbids. */
    private static final boolean[] TOKEN_LOWERCASE = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TOKEN_LOWERCASE[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TOKEN_LOWERCASE[c] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TOKEN_LOWERCASE[c] = true;
        }
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append('\n');
        table.dumpEntries(out, indent + "  ");
    }

    @Override
    public String toString() {
        return String.format(
                "HpackDecoder@%x{table=%d entries, %d/%d octets, SETTINGS_HEADER_TABLE_SIZE=%d%s, blocks=%d, %s%s}",
                hashCode(),
                table.length(),
                table.size(),
                table.maxSize(),
                maxTableSize,
                requiredUpdate >= 0 ? " (update to <= " + requiredUpdate + " required)" : "",
                blocks,
                limits,
                failure == null ? "" : ", FAILED: " + failure);
    }
}
