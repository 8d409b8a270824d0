package dev.quarry.server;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A snapshot of a running server for the status page, {@code status.json} and tests: sections of named values, in
 * display order. Values are numbers, strings, booleans, lists and maps of those.
 *
 * <p>A section shows its live figures first; a nested map named {@value #HIGH_WATER_MARKS} holds the most a figure
 * reached since start (e.g. the most threads busy at once), and one named {@value #LIMITS} the configured bounds
 * those figures run into (e.g. {@code max threads}).
 *
 * @param name the server's name
 * @param uptime time since start
 * @param sections the sections, e.g. {@code threads}, {@code connectors}, {@code requests}
 */
public record ServerStatus(String name, Duration uptime, Map<String, Object> sections) {
    /** The key of a section's configured limits. */
    public static final String LIMITS = "limits";

    /** The key of a section's high-water marks: the most each figure reached since the server started. */
    public static final String HIGH_WATER_MARKS = "high-water marks since start";

    /** Copies the sections, keeping their order. */
    public ServerStatus {
        sections = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(sections));
    }

    /**
     * @param section a section name
     * @return its values, or an empty map
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> section(String section) {
        Object value = sections.get(section);
        return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }

    /** @return the JSON form, as served at {@code /quarry/status.json} */
    public String toJson() {
        StringBuilder out = new StringBuilder(2048);
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("name", name);
        all.put("uptimeSeconds", uptime.toMillis() / 1000.0);
        all.putAll(sections);
        StatusJson.write(out, all);
        return out.toString();
    }

    /** Writes values as JSON; a small writer so that the server needs no library. */
    static final class StatusJson {
        private StatusJson() {}

        static void write(StringBuilder out, Object value) {
            if (value == null) {
                out.append("null");
            } else if (value instanceof Map<?, ?> map) {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    string(out, String.valueOf(entry.getKey()));
                    out.append(':');
                    write(out, entry.getValue());
                }
                out.append('}');
            } else if (value instanceof List<?> list) {
                out.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(out, list.get(i));
                }
                out.append(']');
            } else if (value instanceof Double d) {
                out.append(d.isNaN() || d.isInfinite() ? "null" : String.format(java.util.Locale.ROOT, "%.3f", d));
            } else if (value instanceof Number || value instanceof Boolean) {
                out.append(value);
            } else {
                string(out, value.toString());
            }
        }

        static void string(StringBuilder out, String text) {
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
                        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
        }
    }
}
