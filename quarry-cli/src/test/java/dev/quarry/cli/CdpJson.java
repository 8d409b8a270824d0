package dev.quarry.cli;

import dev.quarry.http.testing.Json;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for the Chrome DevTools Protocol messages the browser test sends and reads: a writer for maps,
 * lists, strings, numbers and booleans; reading is quarry-http's test {@link Json} reader ({@code Map}
 * insertion-ordered, {@code List}, {@code String}, {@code Long} or {@code Double}, {@code Boolean}, {@code null}).
 * Stateless and thread-safe; O(length of the text).
 */
final class CdpJson {
    private CdpJson() {}

    /** @return {@code value} as JSON text */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value);
        return out.toString();
    }

    private static void write(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            String separator = "";
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                out.append(separator);
                separator = ",";
                string(out, String.valueOf(entry.getKey()));
                out.append(':');
                write(out, entry.getValue());
            }
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            String separator = "";
            for (Object item : list) {
                out.append(separator);
                separator = ",";
                write(out, item);
            }
            out.append(']');
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else {
            string(out, value.toString());
        }
    }

    private static void string(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * @param text one JSON value
     * @return it as maps, lists, strings, numbers, booleans and nulls
     * @throws IllegalArgumentException naming the offset where the text is not JSON
     */
    static Object read(String text) {
        return Json.parse(text);
    }
}
