package dev.quarry.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** What {@code quarry --version} prints: Quarry's version, stamped into the jar by the build, and the runtime's. */
final class Version {
    private Version() {}

    /** @return Quarry's version, e.g. {@code 0.1.0}; {@code unknown} when the classes were not built by Maven */
    static String quarry() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "unknown");
            // An unfiltered copy (an IDE that copies resources as they are) still holds the placeholder.
            return version.startsWith("${") ? "unknown" : version;
        } catch (IOException x) {
            throw new UncheckedIOException("reading quarry-cli's version.properties", x);
        }
    }

    /** @return two lines: {@code quarry 0.1.0} and the Java runtime and operating system it runs on */
    static String describe() {
        return "quarry " + quarry() + System.lineSeparator()
                + "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + "), "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch") + System.lineSeparator();
    }
}
