package dev.quarry.server;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Writes the Prometheus text exposition format, version 0.0.4: per metric family a {@code # HELP} and a
 * {@code # TYPE} line, then its samples, {@code name{label="value",...} value}, one per line, each ended by
 * {@code \n}. Label values escape {@code \}, {@code "} and line feeds; help texts escape {@code \} and line feeds.
 *
 * <p>Names are checked here rather than trusted: a metric name must match {@code [a-zA-Z_:][a-zA-Z0-9_:]*}, a label
 * name {@code [a-zA-Z_][a-zA-Z0-9_]*} and not start with {@code __}, a family is declared once, a sample belongs to
 * the family declared last, and a counter's name ends in {@code _total}. A violation is a bug in the caller and
 * throws {@link IllegalArgumentException}.
 *
 * <p>Thread-safety: confined to the thread that writes one exposition. Cost: appends to one {@link StringBuilder}.
 */
final class PrometheusText {
    /** The media type of the format, for {@code Content-Type}. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    /** The types of metric families this writer emits. */
    enum Type {
        COUNTER,
        GAUGE,
        UNTYPED;

        String keyword() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final StringBuilder out;
    private final Set<String> families = new HashSet<>();
    private String family;

    PrometheusText(StringBuilder out) {
        this.out = out;
    }

    /**
     * Starts a metric family: its HELP and TYPE lines.
     *
     * @param name the family name; a counter's ends in {@code _total}
     * @param type its type
     * @param help one line of help
     * @return this
     */
    PrometheusText family(String name, Type type, String help) {
        if (!METRIC_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("invalid metric name: " + name);
        }
        if (type == Type.COUNTER && !name.endsWith("_total")) {
            throw new IllegalArgumentException("a counter's name must end in _total: " + name);
        }
        if (!families.add(name)) {
            throw new IllegalArgumentException("metric family declared twice: " + name);
        }
        family = name;
        out.append("# HELP ").append(name).append(' ');
        escape(help, false);
        out.append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type.keyword()).append('\n');
        return this;
    }

    /**
     * Writes a sample of the current family.
     *
     * @param value the value
     * @param labels label names and values, alternating
     * @return this
     */
    PrometheusText sample(double value, String... labels) {
        labels(labels);
        out.append(' ').append(format(value)).append('\n');
        return this;
    }

    /**
     * Writes a sample of the current family, exactly (no detour through {@code double}).
     *
     * @param value the value
     * @param labels label names and values, alternating
     * @return this
     */
    PrometheusText sample(long value, String... labels) {
        labels(labels);
        out.append(' ').append(value).append('\n');
        return this;
    }

    private void labels(String[] labels) {
        if (family == null) {
            throw new IllegalStateException("a sample before any family");
        }
        if (labels.length % 2 != 0) {
            throw new IllegalArgumentException("labels come in name and value pairs, got " + labels.length);
        }
        out.append(family);
        if (labels.length == 0) {
            return;
        }
        out.append('{');
        for (int i = 0; i < labels.length; i += 2) {
            String name = labels[i];
            if (!LABEL_NAME.matcher(name).matches() || name.startsWith("__")) {
                throw new IllegalArgumentException("invalid label name: " + name);
            }
            if (i > 0) {
                out.append(',');
            }
            out.append(name).append("=\"");
            escape(labels[i + 1], true);
            out.append('"');
        }
        out.append('}');
    }

    private void escape(String text, boolean quotes) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '"' -> out.append(quotes ? "\\\"" : "\"");
                default -> out.append(c);
            }
        }
    }

    static String format(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }
}
