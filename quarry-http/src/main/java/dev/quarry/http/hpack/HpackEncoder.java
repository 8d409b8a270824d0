package dev.quarry.http.hpack;

import dev.quarry.core.Dumpable;
import java.io.IOException;

/**
 * Encodes header lists into HPACK header blocks (RFC 7541) for one HTTP/2 connection, keeping its copy of the peer
 * decoder's dynamic table.
 *
 * <p><b>Choices, per field:</b>
 *
 * <ol>
 *   <li>a field marked {@linkplain HeaderField#sensitive() sensitive} is sent as a never-indexed literal;
 *   <li>a field equal to a static table entry is sent as that index (one octet), then one equal to a dynamic table
 *       entry as that index;
 *   <li>otherwise the {@link IndexingPolicy} decides between a literal with incremental indexing (added to the table),
 *       without indexing, or never indexed; a field larger than 3/4 of the table is never added, as it would flush
 *       nearly everything else;
 *   <li>the name is sent as a static index if the static table has it, else as a dynamic index if the dynamic table
 *       has it, else as a literal;
 *   <li>a string literal is Huffman-coded only if that is strictly shorter (and Huffman is enabled).
 * </ol>
 *
 * <p><b>Default policy</b> ({@link #DEFAULT_POLICY}), explicit so that it can be reviewed:
 *
 * <ul>
 *   <li><em>never indexed</em> (RFC 7541 7.1.3: secrets must not be recoverable by probing the table, and
 *       intermediaries must keep them unindexed): {@code authorization}, {@code proxy-authorization},
 *       {@code set-cookie}, and {@code cookie} values shorter than 20 octets (short cookies are guessable; longer
 *       ones are indexed, as browsers resend them on every request);
 *   <li><em>not indexed</em> (values that rarely repeat on a connection would only evict useful entries):
 *       {@code :path}, {@code content-length}, {@code content-range}, {@code range}, {@code etag},
 *       {@code last-modified}, {@code location}, {@code age}, {@code if-match}, {@code if-none-match},
 *       {@code if-modified-since}, {@code if-unmodified-since}, {@code if-range};
 *   <li><em>indexed</em>: everything else, including {@code date} (it repeats for a second).
 * </ul>
 *
 * <p><b>Table size:</b> the table starts at 4096 octets, HTTP/2's default. {@link #setMaxTableSize} takes each value of
 * the peer's {@code SETTINGS_HEADER_TABLE_SIZE}; the encoder uses at most that and its own {@code tableSizeLimit}, and
 * signals the change at the start of the next block, first with the smallest size reached since the previous block if
 * the size shrank and grew in between (RFC 7541 4.2).
 *
 * <p><b>Cost:</b> per field, one hash lookup in the static table's names and one in the dynamic table's fields (no
 * linear search; no allocation for a field found in a table). A literal costs a pass over its octets to size its
 * Huffman code, and one to write it. A repeated response such as {@code :status 200, content-type text/plain, server
 * quarry, date ...} encodes to about one octet per field after the first response.
 *
 * <p><b>Thread-safety:</b> none. One encoder per HTTP/2 connection, used by one thread at a time; blocks must be sent
 * in the order they were encoded, since each one updates the peer's table.
 */
public final class HpackEncoder implements Dumpable {

    /** How a literal field is represented (RFC 7541 6.2). */
    public enum Indexing {
        /** Literal with incremental indexing: sent and added to the dynamic table (6.2.1). */
        INCREMENTAL,
        /** Literal without indexing: sent, not added (6.2.2). */
        NONE,
        /** Literal never indexed: sent, not added, and intermediaries must not index it either (6.2.3). */
        NEVER
    }

    /** Decides how to send a field that is not already in a table. Called on the encoder's thread. */
    @FunctionalInterface
    public interface IndexingPolicy {

        /**
         * @param name the field name
         * @param value the field value
         * @return how to send the field
         */
        Indexing indexing(String name, String value);
    }

    /** The default policy, described in the class documentation. */
    public static final IndexingPolicy DEFAULT_POLICY = HpackEncoder::defaultIndexing;

    /** Cookies shorter than this are never indexed (RFC 7541 7.1.3). */
    static final int SHORT_COOKIE = 20;

    /** The initial {@code SETTINGS_HEADER_TABLE_SIZE} of HTTP/2 (RFC 9113 6.5.2). */
    public static final int DEFAULT_TABLE_SIZE = 4096;

    private final EncoderTable table = new EncoderTable(DEFAULT_TABLE_SIZE);
    private final int tableSizeLimit;
    private final boolean huffman;
    private final IndexingPolicy policy;

    private int peerMaxTableSize = DEFAULT_TABLE_SIZE;
    /** The table size to signal at the start of the next block, or -1. */
    private int pendingSize = -1;
    /** The smallest size reached since the last block, or -1. */
    private int pendingMinSize = -1;

    private long blocks;

    /** An encoder with a 4096-octet table limit, Huffman coding and the default policy. */
    public HpackEncoder() {
        this(DEFAULT_TABLE_SIZE, true, DEFAULT_POLICY);
    }

    /**
     * @param tableSizeLimit the largest dynamic table this encoder keeps for the peer, whatever the peer allows (memory
     *     per connection); 0 disables the dynamic table
     * @param huffman true to Huffman-code strings when that is shorter
     * @param policy decides how to send fields that are not in a table
     */
    public HpackEncoder(int tableSizeLimit, boolean huffman, IndexingPolicy policy) {
        if (tableSizeLimit < 0) {
            throw new IllegalArgumentException("tableSizeLimit must not be negative: " + tableSizeLimit);
        }
        this.tableSizeLimit = tableSizeLimit;
        this.huffman = huffman;
        this.policy = policy;
        // The peer's decoder starts at 4096 octets; if we keep less, the first block says so.
        tableSizeChanged();
    }

    /**
     * Takes a value of the peer's {@code SETTINGS_HEADER_TABLE_SIZE}. The encoder will use a table of at most this
     * and its own limit, and signals the change at the start of the next block.
     *
     * @param peerMaxTableSize the value the peer sent
     */
    public void setMaxTableSize(int peerMaxTableSize) {
        if (peerMaxTableSize < 0) {
            throw new IllegalArgumentException("peerMaxTableSize must not be negative: " + peerMaxTableSize);
        }
        this.peerMaxTableSize = peerMaxTableSize;
        tableSizeChanged();
    }

    private void tableSizeChanged() {
        int size = Math.min(peerMaxTableSize, tableSizeLimit);
        if (pendingSize < 0 && size == table.maxSize()) {
            return;
        }
        pendingSize = size;
        pendingMinSize = pendingMinSize < 0 ? size : Math.min(pendingMinSize, size);
    }

    /** @return the dynamic table's maximum size, as last signalled to the peer (or about to be) */
    public int tableMaxSize() {
        return pendingSize >= 0 ? pendingSize : table.maxSize();
    }

    /** @return the dynamic table's current size in octets */
    public int tableSize() {
        return table.size();
    }

    /** @return the number of entries in the dynamic table */
    public int tableLength() {
        return table.length();
    }

    /**
     * Encodes one header list as one header block, appending it to {@code out}.
     *
     * @param fields the fields, in order
     * @param out where to append the block
     * @throws IllegalArgumentException if a name or value has a char above {@code 0xFF}; the block is then incomplete
     *     and the encoder out of step with the peer: the connection must be closed
     */
    public void encode(Iterable<HeaderField> fields, HpackOutput out) {
        beginBlock(out);
        for (HeaderField field : fields) {
            encodeField(out, field.name(), field.value(), field.sensitive());
        }
    }

    /**
     * Starts a header block: writes the dynamic table size updates owed to the peer, if any. Call it before the first
     * {@link #encodeField} of each block; {@link #encode} does.
     *
     * @param out where the block is written
     */
    public void beginBlock(HpackOutput out) {
        blocks++;
        if (pendingSize < 0) {
            return;
        }
        if (pendingMinSize < table.maxSize() && pendingMinSize < pendingSize) {
            sizeUpdate(out, pendingMinSize);
        }
        if (pendingSize != table.maxSize()) {
            sizeUpdate(out, pendingSize);
        }
        pendingSize = -1;
        pendingMinSize = -1;
    }

    private void sizeUpdate(HpackOutput out, int size) {
        out.writeInteger(0x20, 5, size);
        table.setMaxSize(size);
    }

    /**
     * Appends one field to the block begun by {@link #beginBlock}.
     *
     * @param out where the block is written
     * @param name the field name (lowercase for HTTP/2)
     * @param value the field value
     * @param sensitive true to send it never-indexed whatever the policy says
     * @throws IllegalStateException if a table size update is owed: {@link #beginBlock} was not called since
     *     {@link #setMaxTableSize}
     * @throws IllegalArgumentException if {@code name} or {@code value} has a char above {@code 0xFF}
     */
    public void encodeField(HpackOutput out, String name, String value, boolean sensitive) {
        if (pendingSize >= 0) {
            throw new IllegalStateException(
                    "a dynamic table size update to " + pendingSize + " is owed: call beginBlock first");
        }
        Indexing indexing;
        int staticIndex = 0;
        if (sensitive) {
            indexing = Indexing.NEVER;
            staticIndex = -StaticTable.indexOfName(name);
        } else {
            staticIndex = StaticTable.indexOf(name, value);
            if (staticIndex > 0) {
                out.writeInteger(0x80, 7, staticIndex);
                return;
            }
            int dynamicIndex = table.indexOf(name, value);
            if (dynamicIndex > 0) {
                out.writeInteger(0x80, 7, StaticTable.LENGTH + dynamicIndex);
                return;
            }
            indexing = policy.indexing(name, value);
            if (indexing == Indexing.INCREMENTAL
                    && (long) (name.length() + value.length() + DynamicTable.ENTRY_OVERHEAD) * 4
                            > (long) table.maxSize() * 3) {
                indexing = Indexing.NONE;
            }
        }
        int nameIndex = -staticIndex;
        if (nameIndex == 0) {
            int dynamicName = table.indexOfName(name);
            if (dynamicName > 0) {
                nameIndex = StaticTable.LENGTH + dynamicName;
            }
        }
        switch (indexing) {
            case INCREMENTAL -> out.writeInteger(0x40, 6, nameIndex);
            case NONE -> out.writeInteger(0x00, 4, nameIndex);
            case NEVER -> out.writeInteger(0x10, 4, nameIndex);
        }
        if (nameIndex == 0) {
            out.writeString(name, huffman);
        }
        out.writeString(value, huffman);
        if (indexing == Indexing.INCREMENTAL) {
            table.add(name, value);
        }
    }

    private static Indexing defaultIndexing(String name, String value) {
        return switch (name) {
            case "authorization", "proxy-authorization", "set-cookie" -> Indexing.NEVER;
            case "cookie" -> value.length() < SHORT_COOKIE ? Indexing.NEVER : Indexing.INCREMENTAL;
            case ":path",
                    "content-length",
                    "content-range",
                    "range",
                    "etag",
                    "last-modified",
                    "location",
                    "age",
                    "if-match",
                    "if-none-match",
                    "if-modified-since",
                    "if-unmodified-since",
                    "if-range" -> Indexing.NONE;
            default -> Indexing.INCREMENTAL;
        };
    }

    /** @return the dynamic table's entries, newest first, as {@code name: value} (for tests and diagnostics) */
    String[] tableEntries() {
        return table.entries();
    }

    /** @return the sizes of the encoder table's lookup maps (for tests) */
    int[] tableMapSizes() {
        return table.mapSizes();
    }

    @Override
    public void dump(Appendable out, String indent) throws IOException {
        out.append(toString()).append('\n');
        table.dumpEntries(out, indent + "  ");
    }

    @Override
    public String toString() {
        return String.format(
                "HpackEncoder@%x{table=%d entries, %d/%d octets, peer SETTINGS_HEADER_TABLE_SIZE=%d, limit=%d%s,"
                        + " huffman=%b, blocks=%d}",
                hashCode(),
                table.length(),
                table.size(),
                table.maxSize(),
                peerMaxTableSize,
                tableSizeLimit,
                pendingSize >= 0 ? ", update to " + pendingSize + " pending" : "",
                huffman,
                blocks);
    }
}
