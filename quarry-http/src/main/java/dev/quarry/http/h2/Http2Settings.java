package dev.quarry.http.h2;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * A set of SETTINGS parameters (RFC 9113 6.5.2): only those present are set. Mutable; not thread-safe.
 */
public final class Http2Settings {
    public static final int HEADER_TABLE_SIZE = 0x1;
    public static final int ENABLE_PUSH = 0x2;
    public static final int MAX_CONCURRENT_STREAMS = 0x3;
    public static final int INITIAL_WINDOW_SIZE = 0x4;
    public static final int MAX_FRAME_SIZE = 0x5;
    public static final int MAX_HEADER_LIST_SIZE = 0x6;
    public static final int ENABLE_CONNECT_PROTOCOL = 0x8;

    /** The initial values of RFC 9113 6.5.2, in force until a SETTINGS frame changes them. */
    public static final int DEFAULT_HEADER_TABLE_SIZE = 4096;

    public static final int DEFAULT_INITIAL_WINDOW_SIZE = 65_535;
    public static final int DEFAULT_MAX_FRAME_SIZE = 16_384;
    public static final int MAX_MAX_FRAME_SIZE = 16_777_215;
    public static final int MAX_WINDOW_SIZE = Integer.MAX_VALUE;

    private static final int KNOWN = 9;
    private final long[] values = new long[KNOWN];
    private final boolean[] present = new boolean[KNOWN];

    /**
     * @param id a known setting id (1-6, 8); unknown ids are ignored as RFC 9113 requires
     * @param value its value
     * @return this
     */
    public Http2Settings set(int id, long value) {
        if (id > 0 && id < KNOWN) {
            values[id] = value;
            present[id] = true;
        }
        return this;
    }

    /**
     * @param id a setting id
     * @return its value, if present
     */
    public OptionalLong get(int id) {
        return id > 0 && id < KNOWN && present[id] ? OptionalLong.of(values[id]) : OptionalLong.empty();
    }

    /**
     * @param id a setting id
     * @return whether it is present
     */
    public boolean has(int id) {
        return id > 0 && id < KNOWN && present[id];
    }

    /** @return how many settings are present */
    public int size() {
        int count = 0;
        for (boolean p : present) {
            if (p) {
                count++;
            }
        }
        return count;
    }

    /** A visitor of present settings. */
    @FunctionalInterface
    public interface Visitor {
        /**
         * @param id the setting id
         * @param value its value
         */
        void visit(int id, long value);
    }

    /** @param visitor called for each present setting, by id */
    public void forEach(Visitor visitor) {
        for (int id = 1; id < KNOWN; id++) {
            if (present[id]) {
                visitor.visit(id, values[id]);
            }
        }
    }

    @Override
    public String toString() {
        StringBuilder builder = new StringBuilder("Http2Settings{");
        forEach((id, value) ->
                builder.append(name(id)).append('=').append(value).append(' '));
        return builder.toString().stripTrailing() + "}";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Http2Settings settings
                && Arrays.equals(values, settings.values)
                && Arrays.equals(present, settings.present);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values) * 31 + Arrays.hashCode(present);
    }

    /**
     * @param id a setting id
     * @return its RFC name
     */
    public static String name(int id) {
        return switch (id) {
            case HEADER_TABLE_SIZE -> "HEADER_TABLE_SIZE";
            case ENABLE_PUSH -> "ENABLE_PUSH";
            case MAX_CONCURRENT_STREAMS -> "MAX_CONCURRENT_STREAMS";
            case INITIAL_WINDOW_SIZE -> "INITIAL_WINDOW_SIZE";
            case MAX_FRAME_SIZE -> "MAX_FRAME_SIZE";
            case MAX_HEADER_LIST_SIZE -> "MAX_HEADER_LIST_SIZE";
            case ENABLE_CONNECT_PROTOCOL -> "ENABLE_CONNECT_PROTOCOL";
            default -> "0x" + Integer.toHexString(id);
        };
    }
}
