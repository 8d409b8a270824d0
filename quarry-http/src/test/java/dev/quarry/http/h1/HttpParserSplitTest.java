package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every valid message parses identically whole, byte by byte, and split at every point, from heap and direct. */
class HttpParserSplitTest {

    static Stream<Messages.Message> messages() {
        return Messages.VALID.stream();
    }

    private static List<String> reference(Messages.Message message) {
        Recorder whole = Feeder.parse(message.text());
        assertNull(whole.failure, () -> message + ": " + whole.failure);
        assertFalse(whole.events.isEmpty());
        long requests =
                whole.events.stream().filter(e -> e.startsWith("request ")).count();
        long completes =
                whole.events.stream().filter(e -> e.equals("messageComplete")).count();
        assertEquals(requests, completes, () -> message + " is complete: " + whole.events);
        assertEquals(message.text().split("HTTP/1\\.[01]\r\n").length - 1, requests, () -> "every request parsed");
        return whole.events;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void parsesIdenticallyFromADirectBuffer(Messages.Message message) {
        List<String> expected = reference(message);
        Recorder direct = Feeder.parse(Feeder.bytes(message.text()), HttpParserConfig.DEFAULT, List.of(), true, false);
        assertEquals(expected, direct.events);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void parsesIdenticallyByteByByte(Messages.Message message) {
        List<String> expected = reference(message);
        byte[] bytes = Feeder.bytes(message.text());
        List<Integer> everyByte = IntStream.range(1, bytes.length).boxed().toList();
        for (boolean direct : new boolean[] {false, true}) {
            Recorder r = Feeder.parse(bytes, HttpParserConfig.DEFAULT, everyByte, direct, false);
            assertEquals(expected, r.events, "direct=" + direct);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void parsesIdenticallyAtEverySplitPoint(Messages.Message message) {
        List<String> expected = reference(message);
        byte[] bytes = Feeder.bytes(message.text());
        for (int split = 1; split < bytes.length; split++) {
            for (boolean direct : new boolean[] {false, true}) {
                Recorder r = Feeder.parse(bytes, HttpParserConfig.DEFAULT, List.of(split), direct, false);
                assertEquals(expected, r.events, "split at " + split + ", direct=" + direct);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void parsesIdenticallyAtEveryPairOfSplitPoints(Messages.Message message) {
        List<String> expected = reference(message);
        byte[] bytes = Feeder.bytes(message.text());
        // Every pair would be O(n^2) parses; a stride keeps the run short while still covering three-way splits.
        int stride = Math.max(1, bytes.length / 40);
        for (int a = 1; a < bytes.length; a += stride) {
            for (int b = a + 1; b < bytes.length; b += stride) {
                List<Integer> splits = new ArrayList<>(List.of(a, b));
                Recorder r = Feeder.parse(bytes, HttpParserConfig.DEFAULT, splits, (a + b) % 2 == 0, false);
                assertEquals(expected, r.events, "splits at " + splits);
            }
        }
    }
}
