package dev.quarry.http.hpack;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A growable array of octets that {@link HpackEncoder} writes header blocks into, reused from block to block. The
 * HTTP/2 layer cuts the block into HEADERS and CONTINUATION frames from {@link #asByteBuffer()}.
 *
 * <p>Not thread-safe: owned by the connection's writer. Writing is amortised O(1) per octet; the array only grows
 * (call {@link #trim} to give memory back after an unusually large block). The array may also be lent for one block
 * ({@link #use}, {@link #detach}), so that idle connections do not each keep one.
 */
public final class HpackOutput {
    private static final byte[] NO_BYTES = new byte[0];

    private byte[] bytes;
    private int size;

    /** An output with room for 256 octets before it grows. */
    public HpackOutput() {
        this(256);
    }

    /** @param initialCapacity the octets it holds before it first grows */
    public HpackOutput(int initialCapacity) {
        if (initialCapacity < 0) {
            throw new IllegalArgumentException("initialCapacity must not be negative: " + initialCapacity);
        }
        bytes = new byte[initialCapacity];
    }

    /**
     * Writes from now on into {@code array} (lent by the caller, typically a per-thread scratch array), forgetting the
     * octets written so far; the output grows out of it if a block needs more.
     *
     * @param array the array to write into
     */
    public void use(byte[] array) {
        bytes = Objects.requireNonNull(array, "array");
        size = 0;
    }

    /**
     * Gives up the array written into (the lent one, or the larger one it grew into) and forgets the octets written;
     * the output holds no array until {@link #use} or a write makes one.
     *
     * @return the array given up
     */
    public byte[] detach() {
        byte[] detached = bytes;
        bytes = NO_BYTES;
        size = 0;
        return detached;
    }

    /** @return the number of octets written since the last {@link #clear()} */
    public int size() {
        return size;
    }

    /** Forgets the octets written, keeping the array. */
    public void clear() {
        size = 0;
    }

    /**
     * Shrinks the array to {@code capacity} octets if it is larger and empty.
     *
     * @param capacity the most octets to keep room for
     */
    public void trim(int capacity) {
        if (size == 0 && bytes.length > capacity) {
            bytes = new byte[capacity];
        }
    }

    /** @return the octets written, as a read-only view (position 0, limit {@link #size()}) valid until the next write */
    public ByteBuffer asByteBuffer() {
        return ByteBuffer.wrap(bytes, 0, size).slice().asReadOnlyBuffer();
    }

    /** @return a copy of the octets written */
    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    /**
     * Copies the octets written into {@code target} at its position, advancing it.
     *
     * @param target where to copy
     * @throws java.nio.BufferOverflowException if {@code target} has less than {@link #size()} octets remaining
     */
    public void copyTo(ByteBuffer target) {
        target.put(bytes, 0, size);
    }

    /**
     * Copies part of the octets written into {@code target} at its position, advancing it: how the HTTP/2 layer cuts a
     * block into frames without a view object per frame.
     *
     * @param target where to copy
     * @param from the index of the first octet to copy
     * @param length how many octets to copy
     * @throws IndexOutOfBoundsException if {@code [from, from + length)} is not within {@link #size()}
     * @throws java.nio.BufferOverflowException if {@code target} has less than {@code length} octets remaining
     */
    public void copyTo(ByteBuffer target, int from, int length) {
        Objects.checkFromIndexSize(from, length, size);
        target.put(bytes, from, length);
    }

    @Override
    public String toString() {
        return String.format("HpackOutput@%x{size=%d, capacity=%d}", hashCode(), size, bytes.length);
    }

    /** Makes room for {@code count} more octets. */
    void ensure(int count) {
        int needed = size + count;
        if (needed > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(Math.max(needed, 64), bytes.length * 2));
        }
    }

    void writeByte(int octet) {
        ensure(1);
        bytes[size++] = (byte) octet;
    }

    /**
     * Writes an integer with an N-bit prefix (RFC 7541 5.1).
     *
     * @param flags the representation's bits above the prefix, in place (e.g. {@code 0x40})
     * @param prefixBits N, 1 to 8
     * @param value a non-negative integer
     */
    void writeInteger(int flags, int prefixBits, int value) {
        ensure(6);
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            bytes[size++] = (byte) (flags | value);
            return;
        }
        bytes[size++] = (byte) (flags | max);
        int rest = value - max;
        while (rest >= 0x80) {
            bytes[size++] = (byte) (rest | 0x80);
            rest >>>= 7;
        }
        bytes[size++] = (byte) rest;
    }

    /**
     * Writes a string literal (RFC 7541 5.2), Huffman-coded if {@code huffman} allows and that is strictly shorter.
     *
     * @param s an octet string
     * @throws IllegalArgumentException if a char of {@code s} is above {@code 0xFF}
     */
    void writeString(String s, boolean huffman) {
        int length = s.length();
        long bits = 0;
        int all = 0;
        if (huffman) {
            for (int i = 0; i < length; i++) {
                char c = s.charAt(i);
                all |= c;
                bits += Huffman.LENGTHS[c & 0xFF];
            }
        } else {
            for (int i = 0; i < length; i++) {
                all |= s.charAt(i);
            }
        }
        if (all > 0xFF) {
            throw new IllegalArgumentException("HPACK strings are octets: char above 0xFF in \"" + s + "\"");
        }
        int huffmanLength = (int) ((bits + 7) >>> 3);
        if (huffman && huffmanLength < length) {
            writeInteger(0x80, 7, huffmanLength);
            ensure(huffmanLength);
            size = Huffman.encode(s, bytes, size);
        } else {
            writeInteger(0, 7, length);
            ensure(length);
            byte[] array = bytes;
            int at = size;
            for (int i = 0; i < length; i++) {
                array[at + i] = (byte) s.charAt(i);
            }
            size = at + length;
        }
    }
}
