package dev.quarry.server;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for tests: it accepts what the format allows and
 * this server promises, and throws {@link IllegalArgumentException} naming the line for anything else.
 *
 * <ul>
 *   <li>every line ends with {@code \n}, the last one too; no empty lines, no comments but HELP and TYPE;
 *   <li>metric names match {@code [a-zA-Z_:][a-zA-Z0-9_:]*}, label names {@code [a-zA-Z_][a-zA-Z0-9_]*} and do not
 *       start with {@code __}; a label appears once per sample;
 *   <li>label values escape only {@code \\}, {@code \"} and {@code \n}; HELP texts only {@code \\} and {@code \n};
 *   <li>each family has one HELP and then one TYPE line before its first sample, and its samples are contiguous;
 *   <li>a counter's name ends in {@code _total}; values are floats, {@code NaN} or {@code ±Inf}; no timestamps;
 *   <li>no series (name and labels) appears twice.
 * </ul>
 */
final class ExpositionParser {
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "untyped", "summary", "histogram");

    /** One sample: its family, labels (sorted by name, values unescaped) and value. */
    record Sample(String name, Map<String, String> labels, double value) {}

    /** What was read: samples by series ({@code name{a="1",b="2"}}, labels sorted), and each family's type and help. */
    record Exposition(Map<String, Sample> samples, Map<String, String> types, Map<String, String> help) {
        /**
         * @param name a family name
         * @param labels label names and values, alternating
         * @return the value of that series
         */
        double value(String name, String... labels) {
            Map<String, String> map = new TreeMap<>();
            for (int i = 0; i < labels.length; i += 2) {
                map.put(labels[i], labels[i + 1]);
            }
            Sample sample = samples.get(key(name, map));
            if (sample == null) {
                throw new AssertionError("no series " + key(name, map) + " in " + samples.keySet());
            }
            return sample.value();
        }
    }

    private ExpositionParser() {}

    static Exposition parse(String text) {
        if (!text.endsWith("\n")) {
            throw new IllegalArgumentException("the exposition does not end with a line feed");
        }
        Map<String, Sample> samples = new LinkedHashMap<>();
        Map<String, String> types = new HashMap<>();
        Map<String, String> help = new HashMap<>();
        Set<String> closed = new HashSet<>();
        String current = null;
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n];
            String where = "line " + (n + 1) + " '" + line + "': ";
            if (line.startsWith("# HELP ")) {
                String rest = line.substring(7);
                int space = rest.indexOf(' ');
                String name = space < 0 ? rest : rest.substring(0, space);
                checkName(name, where);
                if (help.containsKey(name) || closed.contains(name)) {
                    throw new IllegalArgumentException(where + "a second HELP for " + name);
                }
                help.put(name, unescape(space < 0 ? "" : rest.substring(space + 1), false, where));
                if (current != null) {
                    closed.add(current);
                }
                current = name;
            } else if (line.startsWith("# TYPE ")) {
                String[] parts = line.substring(7).split(" ", -1);
                if (parts.length != 2 || !TYPES.contains(parts[1])) {
                    throw new IllegalArgumentException(where + "TYPE takes a name and a type");
                }
                String name = parts[0];
                if (!name.equals(current) || types.containsKey(name)) {
                    throw new IllegalArgumentException(where + "TYPE must follow the HELP of its family, once");
                }
                if (parts[1].equals("counter") && !name.endsWith("_total")) {
                    throw new IllegalArgumentException(where + "a counter's name must end in _total");
                }
                types.put(name, parts[1]);
            } else if (line.isEmpty() || line.startsWith("#")) {
                throw new IllegalArgumentException(where + "an empty line or a comment");
            } else {
                Sample sample = sample(line, where);
                if (!sample.name().equals(current) || !types.containsKey(current)) {
                    throw new IllegalArgumentException(where + "a sample outside its family's block (HELP and TYPE of "
                            + sample.name() + " must come right before its samples)");
                }
                String key = key(sample.name(), sample.labels());
                if (samples.putIfAbsent(key, sample) != null) {
                    throw new IllegalArgumentException(where + "series written twice: " + key);
                }
            }
        }
        return new Exposition(samples, types, help);
    }

    private static Sample sample(String line, String where) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        checkName(name, where);
        Map<String, String> labels = new TreeMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int equals = line.indexOf('=', i);
                if (equals < 0) {
                    throw new IllegalArgumentException(where + "a label without '='");
                }
                String label = line.substring(i, equals);
                if (!LABEL_NAME.matcher(label).matches() || label.startsWith("__")) {
                    throw new IllegalArgumentException(where + "invalid label name '" + label + "'");
                }
                if (equals + 1 >= line.length() || line.charAt(equals + 1) != '"') {
                    throw new IllegalArgumentException(where + "a label value must be quoted");
                }
                int j = equals + 2;
                StringBuilder raw = new StringBuilder();
                while (true) {
                    if (j >= line.length()) {
                        throw new IllegalArgumentException(where + "an unterminated label value");
                    }
                    char c = line.charAt(j);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        if (j + 1 >= line.length()) {
                            throw new IllegalArgumentException(where + "a dangling escape");
                        }
                        raw.append(c);
                        c = line.charAt(++j);
                    }
                    raw.append(c);
                    j++;
                }
                if (labels.put(label, unescape(raw.toString(), true, where)) != null) {
                    throw new IllegalArgumentException(where + "label " + label + " twice");
                }
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                } else if (line.charAt(i) != '}') {
                    throw new IllegalArgumentException(where + "labels are separated by ','");
                }
            }
            i++;
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            throw new IllegalArgumentException(where + "one space must separate the series from its value");
        }
        String value = line.substring(i + 1);
        if (value.contains(" ")) {
            throw new IllegalArgumentException(where + "a timestamp or trailing text");
        }
        return new Sample(name, labels, value(value, where));
    }

    private static double value(String text, String where) {
        switch (text) {
            case "NaN":
                return Double.NaN;
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            default:
                if (!text.matches("[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?")) {
                    throw new IllegalArgumentException(where + "not a number: '" + text + "'");
                }
                return Double.parseDouble(text);
        }
    }

    private static void checkName(String name, String where) {
        if (!METRIC_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(where + "invalid metric name '" + name + "'");
        }
    }

    private static String unescape(String text, boolean quotes, String where) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                if (quotes && c == '"') {
                    throw new IllegalArgumentException(where + "an unescaped quote");
                }
                out.append(c);
                continue;
            }
            char next = i + 1 < text.length() ? text.charAt(++i) : ' ';
            switch (next) {
                case '\\' -> out.append('\\');
                case 'n' -> out.append('\n');
                case '"' -> {
                    if (!quotes) {
                        throw new IllegalArgumentException(where + "HELP does not escape quotes");
                    }
                    out.append('"');
                }
                default -> throw new IllegalArgumentException(where + "an invalid escape '\\" + next + "'");
            }
        }
        return out.toString();
    }

    private static String key(String name, Map<String, String> labels) {
        if (labels.isEmpty()) {
            return name;
        }
        StringBuilder key = new StringBuilder(name).append('{');
        labels.forEach(
                (label, value) -> key.append(label).append("=\"").append(value).append("\","));
        key.setLength(key.length() - 1);
        return key.append('}').toString();
    }
}
