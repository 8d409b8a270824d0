package dev.quarry.http.hpack;

import java.util.HashMap;
import java.util.Map;

/**
 * The encoder's copy of the peer decoder's dynamic table, with hash maps from field and from name to the newest live
 * entry, so that finding a match is O(1) rather than a scan of the table.
 *
 * <p>The maps hold absolute entry numbers (see {@link DynamicTable}). Eviction is FIFO, so when an entry is evicted
 * every older entry is already gone: if a map still points at the evicted entry, no live entry has that key and the
 * mapping is removed; if it points at a newer one, it stays.
 *
 * <p>Lookups allocate nothing: a single mutable probe key is reused, and never stored in a map. Adding allocates one
 * key and boxes one {@code Long}. Not thread-safe: owned by one {@link HpackEncoder}.
 */
final class EncoderTable extends DynamicTable {

    private final Map<FieldKey, Long> fields = new HashMap<>();
    private final Map<String, Long> names = new HashMap<>();
    private final FieldKey probe = new FieldKey(null, null);

    EncoderTable(int maxSize) {
        super(maxSize);
    }

    /** @return the dynamic index (1 is the newest) of an entry equal to {@code name: value}, or 0 */
    int indexOf(String name, String value) {
        Long absolute = fields.get(probe.set(name, value));
        return absolute == null ? 0 : indexOfAbsolute(absolute);
    }

    /** @return the dynamic index of the newest entry named {@code name}, or 0 */
    int indexOfName(String name) {
        Long absolute = names.get(name);
        return absolute == null ? 0 : indexOfAbsolute(absolute);
    }

    @Override
    void added(long absolute, String name, String value) {
        Long boxed = absolute;
        fields.put(new FieldKey(name, value), boxed);
        names.put(name, boxed);
    }

    @Override
    void evicted(long absolute, String name, String value) {
        Long field = fields.get(probe.set(name, value));
        if (field != null && field == absolute) {
            fields.remove(probe);
        }
        Long named = names.get(name);
        if (named != null && named == absolute) {
            names.remove(name);
        }
    }

    /** @return the number of distinct fields and names indexed (for tests: both shrink with evictions) */
    int[] mapSizes() {
        return new int[] {fields.size(), names.size()};
    }

    /** A name and value as a hash key; the encoder's probe instance is mutated, stored instances never are. */
    private static final class FieldKey {
        private String name;
        private String value;
        private int hash;

        FieldKey(String name, String value) {
            if (name != null) {
                set(name, value);
            }
        }

        FieldKey set(String name, String value) {
            this.name = name;
            this.value = value;
            this.hash = name.hashCode() * 31 + value.hashCode();
            return this;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof FieldKey key
                    && hash == key.hash
                    && name.equals(key.name)
                    && value.equals(key.value);
        }
    }
}
