package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line itself: version, help, and the messages of the errors a user can make. */
class MainTest {
    @TempDir
    Path dir;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @ParameterizedTest
    @ValueSource(strings = {"--version", "-V", "version"})
    void versionPrintsQuarrysVersionFromTheBuildAndTheRuntime(String flag) {
        CliRun run = run(flag);

        assertEquals(0, run.status());
        String firstLine = run.out().lines().findFirst().orElseThrow();
        // The build filters version.properties: the version is the POM's, never the placeholder or "unknown".
        assertTrue(firstLine.matches("quarry \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), firstLine);
        assertTrue(run.out().contains("Java " + Runtime.version()), run.out());
    }

    @ParameterizedTest
    @CsvSource({"serve, -h", "serve, --help", "plaintext, -h", "plaintext, --help"})
    void everySubcommandShowsItsHelpForDashHAndDashDashHelp(String command, String flag) {
        CliRun run = run(command, flag);

        assertEquals(0, run.status(), run.err());
        assertTrue(run.out().startsWith("Usage: quarry " + command), run.out());
        assertEquals("", run.err());
    }

    @Test
    void helpWinsOverADirectoryAndOtherOptions() {
        CliRun run = run("serve", dir.toString(), "--port", "0", "-h");

        assertEquals(0, run.status(), run.err());
        assertTrue(run.out().startsWith("Usage: quarry serve"), run.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"-h", "--help", "help"})
    void topLevelHelpListsTheCommandsAndTheVersionOption(String flag) {
        CliRun run = run(flag);

        assertEquals(0, run.status());
        assertTrue(run.out().contains("serve") && run.out().contains("-V, --version"), run.out());
    }

    @Test
    void aShortOptionIsAnUnknownOptionNotADirectory() {
        CliRun run = run("serve", "-p", "8080");

        assertEquals(2, run.status());
        assertTrue(run.err().contains("unknown option -p"), run.err());
    }

    @Test
    void anUnresolvableHostIsNamedInsteadOfAnExceptionClass() {
        // .invalid never resolves (RFC 6761 6.4).
        CliRun run = run("serve", dir.toString(), "--host", "no-such-host.invalid", "--port", "0", "--jmx", "off");

        assertEquals(1, run.status());
        assertEquals(
                "quarry serve: cannot resolve host 'no-such-host.invalid'",
                run.err().strip());
    }

    @Test
    void aBusyPortIsReportedWithTheAddressOnce() throws IOException {
        try (ServerSocketChannel busy = ServerSocketChannel.open()) {
            busy.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = ((InetSocketAddress) busy.getLocalAddress()).getPort();

            CliRun run =
                    run("serve", dir.toString(), "--host", "127.0.0.1", "--port", String.valueOf(port), "--jmx", "off");

            assertEquals(1, run.status());
            assertTrue(run.err().startsWith("quarry serve: cannot bind 127.0.0.1:" + port + ": "), run.err());
            assertFalse(run.err().contains("/127.0.0.1"), run.err());
        }
    }

    @Test
    void aBusyWildcardPortIsReportedWithTheAddressOnce() throws IOException {
        try (ServerSocketChannel busy = ServerSocketChannel.open()) {
            busy.bind(new InetSocketAddress(0));
            int port = ((InetSocketAddress) busy.getLocalAddress()).getPort();

            CliRun run = run("serve", dir.toString(), "--port", String.valueOf(port), "--jmx", "off");

            assertEquals(1, run.status());
            String address = "0.0.0.0:" + port;
            assertTrue(run.err().startsWith("quarry serve: cannot bind " + address + ": "), run.err());
            assertEquals(run.err().indexOf(address), run.err().lastIndexOf(address), run.err());
        }
    }

    @Test
    void anUnresolvedHostWithoutAMessageIsNamedFromTheCommandLine() {
        String message = Main.message(
                new java.nio.channels.UnresolvedAddressException(), List.of("--host=nosuch.invalid", "--port", "0"));

        assertEquals("cannot resolve host 'nosuch.invalid'", message);
    }
}
