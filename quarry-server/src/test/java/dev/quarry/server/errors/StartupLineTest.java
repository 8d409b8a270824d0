package dev.quarry.server.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.server.Server;
import dev.quarry.server.test.LogCapture;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.Transport;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** The line a server logs per connector when it starts names where it listens and the URL to open. */
class StartupLineTest extends ServerTestBase {

    private List<String> startedLines(LogCapture log) {
        return log.matching(r -> r.getLevel() == Level.INFO && r.getMessage().startsWith("Started ")).stream()
                .map(LogRecord::getMessage)
                .toList();
    }

    @Test
    void aTcpConnectorIsNamedWithItsUrl() throws Exception {
        try (LogCapture log = LogCapture.of(Server.class.getName())) {
            start(Transport.TCP, builder -> builder.handler((request, response) -> response.send("ok")));

            int port = server.port();
            assertEquals(
                    List.of("Started http/1.1 (h2c) on 127.0.0.1:" + port + " — http://127.0.0.1:" + port + "/"),
                    startedLines(log));
        }
    }

    @Test
    void aWildcardBindIsOpenedAsLocalhost() throws Exception {
        try (LogCapture log = LogCapture.of(Server.class.getName())) {
            start(Transport.TCP, builder -> builder.http(0).h2c(false).handler((request, response) -> {}));

            int wildcardPort = server.connectors().get(1).localPort();
            assertEquals(
                    "Started http/1.1 on 0.0.0.0:" + wildcardPort + " — http://localhost:" + wildcardPort + "/",
                    startedLines(log).get(1));
        }
    }

    @Test
    void aUnixSocketIsNamedByItsPath() throws Exception {
        try (LogCapture log = LogCapture.of(Server.class.getName())) {
            start(Transport.UNIX, builder -> builder.handler((request, response) -> {}));

            Path socket = tempDir.resolve("quarry.sock");
            assertEquals(List.of("Started http/1.1 (h2c) on unix:" + socket), startedLines(log));
        }
    }
}
