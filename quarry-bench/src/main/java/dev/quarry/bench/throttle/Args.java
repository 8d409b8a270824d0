package dev.quarry.bench.throttle;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** {@code --name value} options of the throttle scenario's programs; an unknown option is an error. */
final class Args {
    private final Map<String, String> values = new LinkedHashMap<>();

    private Args() {}

    /**
     * @param args the command line
     * @param known the option names accepted, without the dashes
     * @return the options
     * @throws IllegalArgumentException naming an unknown option or one without a value
     */
    static Args parse(String[] args, Set<String> known) {
        Args parsed = new Args();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--") || !known.contains(arg.substring(2))) {
                throw new IllegalArgumentException(
                        "unknown option '" + arg + "'; known: --" + String.join(", --", known));
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + arg + " needs a value");
            }
            parsed.values.put(arg.substring(2), args[++i]);
        }
        return parsed;
    }

    String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    int getInt(String name, int fallback) {
        String value = values.get(name);
        return value == null ? fallback : Integer.parseInt(value);
    }

    double getDouble(String name, double fallback) {
        String value = values.get(name);
        return value == null ? fallback : Double.parseDouble(value);
    }

    boolean has(String name) {
        return values.containsKey(name);
    }
}
