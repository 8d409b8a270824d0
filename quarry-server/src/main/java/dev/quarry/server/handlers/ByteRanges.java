package dev.quarry.server.handlers;

import java.util.ArrayList;
import java.util.List;

/**
 * A parsed {@code Range: bytes=...} field (RFC 9110 §14.1.2, §14.2): the range specs as the client sent them, to be
 * resolved against a representation's size.
 *
 * <p>Rules: the unit must be {@code bytes} (any case); any syntax error, including {@code last < first}, makes the whole
 * field invalid and it is ignored (a 200 with the whole content, as §14.2 allows), never a 4xx. Resolving drops the
 * specs that are unsatisfiable and coalesces those that overlap or touch, keeping the order in which the client asked
 * (§14.6 asks for that order).
 *
 * <p>Thread-safety: immutable. Cost: parsing O(length); resolving O(n²) in the number of specs, which the caller caps.
 */
final class ByteRanges {
    private static final long NONE = -1;

    // Pairs (first, last) as sent: first NONE for a suffix range (last is then the suffix length), last NONE for open.
    private final long[] specs;

    private ByteRanges(long[] specs) {
        this.specs = specs;
    }

    /**
     * @param value the Range field value
     * @return the specs, or null if the field is not a valid byte range set (then it is ignored)
     */
    static ByteRanges parse(String value) {
        int length = value.length();
        int i = skipSpaces(value, 0);
        if (!value.regionMatches(true, i, "bytes", 0, 5)) {
            return null;
        }
        i = skipSpaces(value, i + 5);
        if (i >= length || value.charAt(i) != '=') {
            return null;
        }
        i++;
        List<long[]> parsed = new ArrayList<>(2);
        while (true) {
            i = skipSpaces(value, i);
            if (i < length && value.charAt(i) == ',') {
                i++; // empty list elements are allowed (RFC 9110 §5.6.1.2)
                continue;
            }
            if (i >= length) {
                break;
            }
            int end = i;
            while (end < length && value.charAt(end) != ',') {
                end++;
            }
            long[] spec = parseSpec(value, i, trimEnd(value, i, end));
            if (spec == null) {
                return null;
            }
            parsed.add(spec);
            i = end;
        }
        if (parsed.isEmpty()) {
            return null;
        }
        long[] specs = new long[parsed.size() * 2];
        for (int k = 0; k < parsed.size(); k++) {
            specs[2 * k] = parsed.get(k)[0];
            specs[2 * k + 1] = parsed.get(k)[1];
        }
        return new ByteRanges(specs);
    }

    /** @return how many range specs the client sent */
    int count() {
        return specs.length / 2;
    }

    /**
     * @param size the representation's length
     * @return the satisfiable ranges, coalesced, in the order asked; empty if none is satisfiable (416)
     */
    List<ByteRange> resolve(long size) {
        List<ByteRange> ranges = new ArrayList<>(count());
        for (int k = 0; k < specs.length; k += 2) {
            long first = specs[k];
            long last = specs[k + 1];
            ByteRange range;
            if (first == NONE) {
                if (last == 0 || size == 0) {
                    continue; // a zero-length suffix, or an empty representation: unsatisfiable
                }
                range = new ByteRange(Math.max(0, size - last), size - 1);
            } else {
                if (first >= size) {
                    continue;
                }
                range = new ByteRange(first, last == NONE ? size - 1 : Math.min(last, size - 1));
            }
            add(ranges, range);
        }
        return ranges;
    }

    /**
     * Adds a range; if it overlaps or touches ranges already there, they are merged into one, which takes the place
     * of the earliest of them.
     */
    private static void add(List<ByteRange> ranges, ByteRange range) {
        ByteRange merged = range;
        int place = ranges.size();
        boolean merging = true;
        while (merging) {
            merging = false;
            for (int i = 0; i < ranges.size(); i++) {
                ByteRange existing = ranges.get(i);
                if (merged.first() <= existing.last() + 1 && existing.first() <= merged.last() + 1) {
                    merged = new ByteRange(
                            Math.min(existing.first(), merged.first()), Math.max(existing.last(), merged.last()));
                    ranges.remove(i);
                    place = Math.min(place, i);
                    merging = true; // the range grew: it may now touch one already checked
                    break;
                }
            }
        }
        ranges.add(Math.min(place, ranges.size()), merged);
    }

    /** @return {first, last} with NONE for what is absent, or null if malformed */
    private static long[] parseSpec(String value, int from, int to) {
        int dash = value.indexOf('-', from);
        if (dash < 0 || dash >= to) {
            return null;
        }
        if (dash == from) {
            long suffix = number(value, dash + 1, to);
            return suffix < 0 ? null : new long[] {NONE, suffix};
        }
        long first = number(value, from, dash);
        if (first < 0) {
            return null;
        }
        if (dash + 1 == to) {
            return new long[] {first, NONE};
        }
        long last = number(value, dash + 1, to);
        if (last < 0 || last < first) {
            return null;
        }
        return new long[] {first, last};
    }

    /** @return the decimal number in [from, to), or -1 if it is not 1 to 18 digits */
    private static long number(String value, int from, int to) {
        if (to <= from || to - from > 18) {
            return -1;
        }
        long n = 0;
        for (int i = from; i < to; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }

    private static int skipSpaces(String value, int i) {
        while (i < value.length() && (value.charAt(i) == ' ' || value.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static int trimEnd(String value, int from, int end) {
        while (end > from && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
            end--;
        }
        return end;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("bytes=");
        for (int k = 0; k < specs.length; k += 2) {
            out.append(k == 0 ? "" : ",")
                    .append(specs[k] == NONE ? "" : Long.toString(specs[k]))
                    .append('-')
                    .append(specs[k + 1] == NONE ? "" : Long.toString(specs[k + 1]));
        }
        return out.toString();
    }

    /**
     * A satisfiable range of bytes, both ends inclusive as in Content-Range.
     *
     * @param first the first byte
     * @param last the last byte
     */
    record ByteRange(long first, long last) {
        /** @return how many bytes */
        long length() {
            return last - first + 1;
        }

        /** @return the Content-Range value for a representation of {@code size} bytes */
        String contentRange(long size) {
            return "bytes " + first + "-" + last + "/" + size;
        }
    }
}
