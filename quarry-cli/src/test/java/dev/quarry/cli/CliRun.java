package dev.quarry.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One run of the {@code quarry} command in the test's JVM: its exit status and what it printed.
 *
 * @param status the exit status
 * @param out what it printed on standard output
 * @param err what it printed on standard error
 */
record CliRun(int status, String out, String err) {

    /** Runs {@code quarry args...} and captures both streams. */
    static CliRun of(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(
                List.of(args),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CliRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
