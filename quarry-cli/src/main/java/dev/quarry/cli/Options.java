package dev.quarry.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Parsed command-line options: {@code --name value}, {@code --name=value}, boolean {@code --flag}, and positional
 * arguments. Unknown options and bad values are errors that name the option and the value.
 */
final class Options {
    private final Map<String, String> values = new LinkedHashMap<>();
    // Every value of options given more than once (values keeps the last).
    private final Map<String, List<String>> repeated = new LinkedHashMap<>();
    private final List<String> positional = new ArrayList<>();

    private Options() {}

    /**
     * @param args the arguments after the subcommand
     * @param withValue option names that take a value
     * @param flags option names that take none
     * @return the options
     * @throws UsageException for an unknown option or a missing value
     */
    static Options parse(List<String> args, Set<String> withValue, Set<String> flags) {
        Options options = new Options();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                // A lone "-" or a plain word is positional; "-p 80" is a mistake to name, not a directory to serve.
                if (arg.length() > 1 && arg.startsWith("-")) {
                    throw new UsageException("unknown option " + arg + " (options are long: --port, --host, ...)");
                }
                options.positional.add(arg);
                continue;
            }
            String name = arg.substring(2);
            String value = null;
            int equals = name.indexOf('=');
            if (equals >= 0) {
                value = name.substring(equals + 1);
                name = name.substring(0, equals);
            }
            if (flags.contains(name)) {
                if (value != null) {
                    throw new UsageException("--" + name + " takes no value");
                }
                options.values.put(name, "true");
            } else if (withValue.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw new UsageException("--" + name + " needs a value");
                    }
                    value = args.get(++i);
                }
                options.values.put(name, value);
                options.repeated.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
            } else {
                throw new UsageException("unknown option --" + name);
            }
        }
        return options;
    }

    /** @return whether {@code arg} asks for help: {@code -h} or {@code --help} */
    static boolean isHelp(String arg) {
        return arg.equals("-h") || arg.equals("--help");
    }

    /** @return whether any of a subcommand's arguments asks for help, which then wins over every other argument */
    static boolean wantsHelp(List<String> args) {
        return args.stream().anyMatch(Options::isHelp);
    }

    List<String> positional() {
        return positional;
    }

    boolean flag(String name) {
        return values.containsKey(name);
    }

    Optional<String> string(String name) {
        return Optional.ofNullable(values.get(name));
    }

    /** @return every value given to a repeatable option, in order, each split at commas; empty if none */
    List<String> list(String name) {
        List<String> all = new ArrayList<>();
        for (String value : repeated.getOrDefault(name, List.of())) {
            for (String part : value.split(",")) {
                if (!part.isBlank()) {
                    all.add(part.strip());
                }
            }
        }
        return all;
    }

    /** @return every value given to a repeatable option, in order, as given (file names may hold commas) */
    List<String> all(String name) {
        return List.copyOf(repeated.getOrDefault(name, List.of()));
    }

    int integer(String name, int defaultValue, int min, int max) {
        String value = values.get(name);
        if (value == null) {
            return defaultValue;
        }
        try {
            int parsed = Integer.parseInt(value.trim());
            if (parsed < min || parsed > max) {
                throw new UsageException("--" + name + " must be between " + min + " and " + max + ", not " + value);
            }
            return parsed;
        } catch (NumberFormatException x) {
            throw new UsageException("--" + name + " must be a number, not '" + value + "'");
        }
    }

    boolean onOff(String name, boolean defaultValue) {
        String value = values.get(name);
        if (value == null) {
            return defaultValue;
        }
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "on", "true", "yes" -> true;
            case "off", "false", "no" -> false;
            default -> throw new UsageException("--" + name + " must be on or off, not '" + value + "'");
        };
    }

    /** A duration in seconds ({@code 30}) or with a unit ({@code 500ms}, {@code 30s}, {@code 5m}). */
    Duration duration(String name, Duration defaultValue) {
        String value = values.get(name);
        if (value == null) {
            return defaultValue;
        }
        String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            if (v.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            return Duration.ofSeconds(Long.parseLong(v));
        } catch (NumberFormatException x) {
            throw new UsageException(
                    "--" + name + " must be a duration like 30, 30s, 500ms or 5m, not '" + value + "'");
        }
    }

    /** A wrong command line: the message says what is wrong, for the user. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
