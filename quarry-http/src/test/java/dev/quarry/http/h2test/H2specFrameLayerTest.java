package dev.quarry.http.h2test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs h2spec's frame-level and header-block cases against {@link EchoServer}, a server made of nothing but the frame
 * parser, the message rules and the generator: these cases need no stream state or flow-control window, so they test
 * the frame layer alone. (The cases about stream states, windows, concurrency and content-length against DATA are the
 * session's and are left out: the echo server has none of that.) Skipped when h2spec is not on the PATH or in
 * {@code ~/go/bin}.
 */
class H2specFrameLayerTest {

    /** Every h2spec case that the frame layer alone decides. */
    private static final List<String> CASES = List.of(
            "generic",
            "hpack",
            "http2/3.5",
            "http2/4",
            "http2/5.1/4",
            "http2/5.1/7",
            "http2/5.1/10",
            "http2/5.1/13",
            "http2/5.1.1/1",
            "http2/5.3.1",
            "http2/5.4.1",
            "http2/5.5",
            "http2/6.1/1",
            "http2/6.1/3",
            "http2/6.2",
            "http2/6.3",
            "http2/6.4/1",
            "http2/6.4/3",
            "http2/6.5/1",
            "http2/6.5/2",
            "http2/6.5/3",
            "http2/6.5.2",
            "http2/6.5.3/2",
            "http2/6.7",
            "http2/6.8",
            "http2/6.9/1",
            "http2/6.9/2",
            "http2/6.9/3",
            "http2/6.9.2/3",
            "http2/6.10",
            "http2/7",
            "http2/8.1.2/1",
            "http2/8.1.2.1",
            "http2/8.1.2.2",
            "http2/8.1.2.3",
            "http2/8.2");

    private static String h2spec() {
        for (String dir : (System.getenv("PATH") + File.pathSeparator + System.getProperty("user.home") + "/go/bin")
                .split(File.pathSeparator)) {
            File candidate = new File(dir, "h2spec");
            if (candidate.canExecute()) {
                return candidate.getPath();
            }
        }
        return null;
    }

    @Test
    void h2specFrameLevelCasesPass() throws IOException, InterruptedException {
        String h2spec = h2spec();
        assumeTrue(h2spec != null, "h2spec is not installed");
        try (EchoServer server = EchoServer.tcp()) {
            int port = ((InetSocketAddress) server.address()).getPort();
            List<String> command =
                    new ArrayList<>(List.of(h2spec, "-h", "127.0.0.1", "-p", Integer.toString(port), "-o", "2"));
            command.addAll(CASES);
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                    .replaceAll("\u001b\\[[0-9;]*m", "");
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "h2spec did not finish");
            Matcher summary = Pattern.compile("(\\d+) tests, (\\d+) passed, (\\d+) skipped, (\\d+) failed")
                    .matcher(output);
            assertTrue(summary.find(), () -> "no h2spec summary in:\n" + tail(output));
            assertEquals("0", summary.group(4), () -> "h2spec failures:\n" + failures(output));
            assertTrue(Integer.parseInt(summary.group(2)) >= 100, summary.group());
        }
    }

    private static String failures(String output) {
        int at = output.indexOf("Failures:");
        return at < 0 ? tail(output) : output.substring(at, Math.min(output.length(), at + 4000));
    }

    private static String tail(String output) {
        return output.substring(Math.max(0, output.length() - 4000));
    }
}
