package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Server;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code --min-body-rate RATE}, shared by serve and plaintext: a body slower than it is answered 408. */
class MinBodyRateOptionTest {
    private Server server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private static Options options(String... args) {
        return Options.parse(List.of(args), Main.SERVER_OPTIONS, Set.of());
    }

    @Test
    void aBodySlowerThanTheOptionIsAnswered408() throws Exception {
        server = Main.serverBuilder(options("--port", "0", "--host", "127.0.0.1", "--min-body-rate", "1k"))
                .route(
                        "POST /upload",
                        (req, res) -> res.send("read " + req.inputStream().readAllBytes().length))
                .build()
                .start();

        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000); // far beyond the second of grace plus a check: only the rate can answer
            OutputStream out = socket.getOutputStream();
            // Ten bytes of a 100,000-byte body, then nothing: a rate of nearly 0 against 1000 bytes/s.
            out.write(("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 100000\r\n\r\n" + "x".repeat(10))
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.US_ASCII);

            assertTrue(response.startsWith("HTTP/1.1 408 "), response);
            assertTrue(response.contains("slower than 1000 bytes/s"), response);
        }
    }

    @Test
    void offMeansNoMinimum() {
        assertEquals(0, Main.minBodyRate("off"));
        assertEquals(2048, Main.minBodyRate("2KiB/s"));
    }

    @Test
    void aRateInBitsIsAUsageErrorThatNamesIt() {
        Options.UsageException x = assertThrows(
                Options.UsageException.class, () -> Main.serverBuilder(options("--min-body-rate", "8kbit")));

        assertTrue(x.getMessage().startsWith("--min-body-rate: "), x.getMessage());
        assertTrue(x.getMessage().contains("8kbit"), x.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"serve", "plaintext"})
    void bothServerCommandsListTheOption(String command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Main.run(List.of(command, "--help"), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        String help = out.toString(StandardCharsets.UTF_8);
        assertTrue(help.startsWith("Usage: quarry " + command), help);
        assertTrue(help.contains("\n  --min-body-rate RATE    a request body must arrive"), help);
        assertTrue(ServeCommand.OPTIONS.contains("min-body-rate"));
    }
}
