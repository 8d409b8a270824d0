package dev.quarry.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The load generators' command line, as client.sh writes it. */
class LoadOptionsTest {
    @Test
    void defaultsToSixtyFourHttp11ConnectionsForTenSecondsAfterFive() {
        LoadOptions options = LoadOptions.parse("load-jetty", "http://127.0.0.1:8080/plaintext");

        assertEquals(LoadClientKind.JETTY, options.client());
        assertEquals(URI.create("http://127.0.0.1:8080/plaintext"), options.uri());
        assertEquals(64, options.inFlight());
        assertEquals(Duration.ofSeconds(10), options.duration());
        assertEquals(Duration.ofSeconds(5), options.warmup());
        assertFalse(options.h2c());
        assertFalse(options.blocking());
        assertEquals("h1", options.protocol());
    }

    @Test
    void h2cKeepsConnectionsTimesStreamsInFlight() {
        LoadOptions options = LoadOptions.parse(
                "load-quarry",
                "--h2c",
                "-c",
                "16",
                "-m",
                "32",
                "http://127.0.0.1:1/",
                "-d",
                "3",
                "-w",
                "0",
                "--blocking");

        assertEquals(LoadClientKind.QUARRY, options.client());
        assertEquals(512, options.inFlight());
        assertEquals(Duration.ofSeconds(3), options.duration());
        assertEquals(Duration.ZERO, options.warmup());
        assertTrue(options.h2c());
        assertTrue(options.blocking());
    }

    @Test
    void rejectsWhatItCannotRunNamingTheProblem() {
        assertTrue(message("load-curl", "http://127.0.0.1:1/").contains("load-curl"));
        assertTrue(message("load-jdk").contains("URL"));
        assertTrue(message("load-jdk", "http://127.0.0.1:1/", "-m", "32").contains("--h2c"));
        assertTrue(message("load-jdk", "https://127.0.0.1:1/").contains("https://127.0.0.1:1/"));
        assertTrue(message("load-jdk", "http://127.0.0.1:1/", "-c", "many").contains("many"));
        assertTrue(message("load-jdk", "http://127.0.0.1:1/", "-d", "0").contains("duration"));
        assertTrue(message("load-jdk", "http://127.0.0.1:1/", "--pipeline").contains("--pipeline"));
    }

    private static String message(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse(args))
                .getMessage();
    }
}
