package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * An ordered, multi-valued, case-insensitive collection of fields: a header or trailer section.
 *
 * <p>Fields live in a small array in arrival order. A lookup by {@link HttpHeader} compares enum identity, which is
 * why well-known names should be looked up by header; a lookup by name resolves a well-known name to its header first
 * and compares the other names ignoring case. Sections are small (tens of fields), so a linear scan beats hashing.
 *
 * <p>Absent values are {@code Optional}: the lookups are small enough to inline, so escape analysis removes the
 * wrapper in practice; a hot path that must not depend on that can use {@link #indexOf(HttpHeader)} and
 * {@link #field(int)}.
 *
 * <p>Thread-safety: not thread-safe; a mutable instance is confined to one thread at a time. {@link #asImmutable()}
 * returns a snapshot that rejects mutation and may be shared. Cost: add O(1) amortised; lookups O(n).
 */
public final class HttpFields implements Iterable<HttpField> {
    private static final HttpField[] EMPTY = new HttpField[0];

    private HttpField[] fields;
    private int size;
    private final boolean immutable;

    /** An empty, mutable section. */
    public HttpFields() {
        this(12);
    }

    /** @param capacity the number of fields to make room for up front */
    public HttpFields(int capacity) {
        this.fields = capacity == 0 ? EMPTY : new HttpField[capacity];
        this.immutable = false;
    }

    private HttpFields(HttpField[] fields, int size, boolean immutable) {
        this.fields = fields;
        this.size = size;
        this.immutable = immutable;
    }

    /** @return a mutable section holding {@code fields} in order */
    public static HttpFields of(HttpField... fields) {
        HttpFields result = new HttpFields(Math.max(fields.length, 4));
        for (HttpField field : fields) {
            result.add(field);
        }
        return result;
    }

    /** @return the number of field lines */
    public int size() {
        return size;
    }

    /** @return whether there is no field */
    public boolean isEmpty() {
        return size == 0;
    }

    /** @return whether this section rejects mutation */
    public boolean isImmutable() {
        return immutable;
    }

    /**
     * @param index 0 to {@code size() - 1}
     * @return the field at {@code index}, in arrival order
     */
    public HttpField field(int index) {
        Objects.checkIndex(index, size);
        return fields[index];
    }

    /** Appends a field line, after any field of the same name. */
    public HttpFields add(HttpField field) {
        checkMutable();
        Objects.requireNonNull(field, "field");
        if (size == fields.length) {
            fields = Arrays.copyOf(fields, Math.max(8, size * 2));
        }
        fields[size++] = field;
        return this;
    }

    /** Appends a well-known field line. */
    public HttpFields add(HttpHeader header, String value) {
        return add(new HttpField(header, value));
    }

    /** Appends a field line by name. */
    public HttpFields add(String name, String value) {
        return add(new HttpField(name, value));
    }

    /**
     * Sets a field: replaces the first field of the same name in place and removes the others, or appends it.
     *
     * @param field the field
     * @return this
     */
    public HttpFields put(HttpField field) {
        checkMutable();
        HttpHeader header = field.headerOrNull();
        int first = header != null ? indexOf(header) : indexOfName(field.name());
        if (first < 0) {
            return add(field);
        }
        fields[first] = field;
        removeFrom(first + 1, header, field.name());
        return this;
    }

    /** Sets a well-known field; see {@link #put(HttpField)}. */
    public HttpFields put(HttpHeader header, String value) {
        return put(new HttpField(header, value));
    }

    /** Sets a field by name; see {@link #put(HttpField)}. */
    public HttpFields put(String name, String value) {
        return put(new HttpField(name, value));
    }

    /**
     * Removes every field line of a well-known name.
     *
     * @return whether any was removed
     */
    public boolean remove(HttpHeader header) {
        checkMutable();
        return removeFrom(0, Objects.requireNonNull(header, "header"), header.asString()) > 0;
    }

    /**
     * Removes every field line of a name, ignoring case.
     *
     * @return whether any was removed
     */
    public boolean remove(String name) {
        checkMutable();
        return removeFrom(0, HttpHeader.lookup(name).orElse(null), name) > 0;
    }

    /** Removes every field. */
    public void clear() {
        checkMutable();
        Arrays.fill(fields, 0, size, null);
        size = 0;
    }

    /**
     * @return the index of the first field that is {@code header}, or -1; allocation-free
     */
    public int indexOf(HttpHeader header) {
        HttpField[] f = fields;
        for (int i = 0; i < size; i++) {
            if (f[i].headerOrNull() == header) {
                return i;
            }
        }
        return -1;
    }

    /** @return the index of the first field named {@code name}, ignoring case, or -1 */
    public int indexOf(String name) {
        return indexOfName(name);
    }

    /** @return the first field that is {@code header} */
    public Optional<HttpField> getField(HttpHeader header) {
        int index = indexOf(header);
        return index < 0 ? Optional.empty() : Optional.of(fields[index]);
    }

    /** @return the first field named {@code name}, ignoring case */
    public Optional<HttpField> getField(String name) {
        int index = indexOfName(name);
        return index < 0 ? Optional.empty() : Optional.of(fields[index]);
    }

    /** @return the value of the first field that is {@code header} */
    public Optional<String> get(HttpHeader header) {
        int index = indexOf(header);
        return index < 0 ? Optional.empty() : Optional.of(fields[index].value());
    }

    /** @return the value of the first field named {@code name}, ignoring case */
    public Optional<String> get(String name) {
        int index = indexOfName(name);
        return index < 0 ? Optional.empty() : Optional.of(fields[index].value());
    }

    /** @return the values of every field that is {@code header}, in order */
    public List<String> getAll(HttpHeader header) {
        List<String> values = new ArrayList<>(2);
        for (int i = 0; i < size; i++) {
            if (fields[i].headerOrNull() == header) {
                values.add(fields[i].value());
            }
        }
        return values;
    }

    /** @return the values of every field named {@code name}, ignoring case, in order */
    public List<String> getAll(String name) {
        HttpHeader header = HttpHeader.lookup(name).orElse(null);
        if (header != null) {
            return getAll(header);
        }
        List<String> values = new ArrayList<>(2);
        for (int i = 0; i < size; i++) {
            if (fields[i].headerOrNull() == null && fields[i].name().equalsIgnoreCase(name)) {
                values.add(fields[i].value());
            }
        }
        return values;
    }

    /** @return whether a field is {@code header} */
    public boolean contains(HttpHeader header) {
        return indexOf(header) >= 0;
    }

    /** @return whether a field is named {@code name}, ignoring case */
    public boolean contains(String name) {
        return indexOfName(name) >= 0;
    }

    /**
     * @return whether a field that is {@code header} lists {@code token} (ignoring case), see
     *     {@link HttpField#containsToken(String)}
     */
    public boolean containsToken(HttpHeader header, String token) {
        for (int i = 0; i < size; i++) {
            if (fields[i].headerOrNull() == header && fields[i].containsToken(token)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reads the first field that is {@code header} as a non-negative decimal number, e.g. {@code Content-Length}.
     *
     * @return the number, or empty if there is no such field
     * @throws IllegalArgumentException if the value is not 1 to 18 decimal digits
     */
    public OptionalLong getLong(HttpHeader header) {
        int index = indexOf(header);
        if (index < 0) {
            return OptionalLong.empty();
        }
        String value = fields[index].value();
        if (value.isEmpty() || value.length() > 18) {
            throw new IllegalArgumentException("not a number: " + header + ": " + HttpChars.quote(value));
        }
        long result = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("not a number: " + header + ": " + HttpChars.quote(value));
            }
            result = result * 10 + (c - '0');
        }
        return OptionalLong.of(result);
    }

    /** @return this section if immutable, otherwise an immutable snapshot of it */
    public HttpFields asImmutable() {
        if (immutable) {
            return this;
        }
        return new HttpFields(Arrays.copyOf(fields, size), size, true);
    }

    /** @return a mutable copy of this section */
    public HttpFields copy() {
        return new HttpFields(Arrays.copyOf(fields, Math.max(size, 4)), size, false);
    }

    /** Visits each field in order, without allocating an iterator. */
    @Override
    public void forEach(Consumer<? super HttpField> action) {
        HttpField[] f = fields;
        int n = size;
        for (int i = 0; i < n; i++) {
            action.accept(f[i]);
        }
    }

    @Override
    public Iterator<HttpField> iterator() {
        return new Iterator<>() {
            private final int expectedSize = size;
            private int next;

            @Override
            public boolean hasNext() {
                return next < size;
            }

            @Override
            public HttpField next() {
                if (size != expectedSize) {
                    throw new ConcurrentModificationException();
                }
                if (next >= size) {
                    throw new NoSuchElementException();
                }
                return fields[next++];
            }
        };
    }

    private int indexOfName(String name) {
        HttpHeader header = HttpHeader.lookup(name).orElse(null);
        if (header != null) {
            return indexOf(header);
        }
        for (int i = 0; i < size; i++) {
            if (fields[i].headerOrNull() == null && fields[i].name().equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    // Removes, from index `from` on, the fields that are `header` (when not null) or are named `name`; keeps order.
    private int removeFrom(int from, HttpHeader header, String name) {
        int kept = from;
        for (int i = from; i < size; i++) {
            HttpField field = fields[i];
            boolean match = header != null
                    ? field.headerOrNull() == header
                    : field.headerOrNull() == null && field.name().equalsIgnoreCase(name);
            if (!match) {
                fields[kept++] = field;
            }
        }
        int removed = size - kept;
        Arrays.fill(fields, kept, size, null);
        size = kept;
        return removed;
    }

    private void checkMutable() {
        if (immutable) {
            throw new UnsupportedOperationException("immutable HttpFields");
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HttpFields that
                && size == that.size
                && Arrays.equals(fields, 0, size, that.fields, 0, that.size);
    }

    @Override
    public int hashCode() {
        int hash = 1;
        for (int i = 0; i < size; i++) {
            hash = hash * 31 + fields[i].hashCode();
        }
        return hash;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(size * 32).append('{');
        for (int i = 0; i < size; i++) {
            out.append(i == 0 ? "" : ", ").append(fields[i]);
        }
        return out.append('}').toString();
    }
}
