package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The parser's window and the generator's head scratch are borrowed per call from their thread (see
 * {@code ThreadScratch}): connections that take turns on one thread, or a connection served on a virtual thread, each
 * see only their own bytes.
 */
class ThreadScratchSharingTest {
    private static final HttpVersion V11 = HttpVersion.HTTP_1_1;

    @Test
    void generatorsTakingTurnsOnAThreadWriteTheirOwnHeads() {
        HttpGenerator large = new HttpGenerator();
        HttpGenerator small = new HttpGenerator();
        String longValue = "v".repeat(1000); // grows the thread's array
        HttpFields big = new HttpFields().add("X-Long", longValue);

        String first = head(large, big);
        String second = head(small, new HttpFields().add("X-Small", "s"));
        large.reset();
        String third = head(large, new HttpFields().add("X-Again", "a"));

        assertEquals("HTTP/1.1 200 OK\r\nX-Long: " + longValue + "\r\nContent-Length: 0\r\n\r\n", first);
        assertEquals("HTTP/1.1 200 OK\r\nX-Small: s\r\nContent-Length: 0\r\n\r\n", second);
        assertEquals("HTTP/1.1 200 OK\r\nX-Again: a\r\nContent-Length: 0\r\n\r\n", third);
    }

    @Test
    void aGeneratorOnAVirtualThreadUsesItsOwnArray() throws Exception {
        HttpGenerator generator = new HttpGenerator();
        String before = head(generator, new HttpFields().add("X-Platform", "p"));
        AtomicReference<String> onVirtual = new AtomicReference<>();
        Thread.ofVirtual()
                .start(() -> {
                    generator.reset();
                    onVirtual.set(head(generator, new HttpFields().add("X-Virtual", "v".repeat(600))));
                })
                .join();
        generator.reset();
        String after = head(generator, new HttpFields().add("X-Back", "b"));

        assertEquals("HTTP/1.1 200 OK\r\nX-Platform: p\r\nContent-Length: 0\r\n\r\n", before);
        assertEquals(
                "HTTP/1.1 200 OK\r\nX-Virtual: " + "v".repeat(600) + "\r\nContent-Length: 0\r\n\r\n", onVirtual.get());
        assertEquals("HTTP/1.1 200 OK\r\nX-Back: b\r\nContent-Length: 0\r\n\r\n", after);
    }

    @Test
    void parsersTakingTurnsOnAThreadKeepTheirOwnLines() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        HttpParser parserA = new HttpParser(a);
        HttpParser parserB = new HttpParser(b);

        parserA.parse(direct("GET /a HTTP/1.1\r\nHost: aa"));
        parserB.parse(direct("GET /b HTTP/1.1\r\nHost: bb\r\nX-B: " + "b".repeat(700) + "\r\n\r\n"));
        parserA.parse(direct("aa\r\nX-A: 1\r\n\r\n"));

        assertEquals(
                List.of("request GET /a HTTP/1.1", "header Host: aaaa", "header X-A: 1", "headerComplete"),
                a.events.subList(0, 4));
        assertEquals(
                List.of(
                        "request GET /b HTTP/1.1",
                        "header Host: bb",
                        "header X-B: " + "b".repeat(700),
                        "headerComplete"),
                b.events.subList(0, 4));
    }

    @Test
    void aParserOnAVirtualThreadReadsItsOwnLines() throws Exception {
        Recorder recorder = new Recorder();
        HttpParser parser = new HttpParser(recorder);
        parser.parse(direct("GET /v HTTP/1.1\r\nHost: "));
        Thread.ofVirtual()
                .start(() -> parser.parse(direct("vv\r\nX-V: 1\r\n\r\n")))
                .join();

        assertEquals(
                List.of("request GET /v HTTP/1.1", "header Host: vv", "header X-V: 1", "headerComplete"),
                recorder.events.subList(0, 4));
    }

    private static String head(HttpGenerator generator, HttpFields fields) {
        ByteBuffer out = ByteBuffer.allocateDirect(4096);
        generator.writeResponseHead(out, V11, "GET", 200, fields, 0, true);
        out.flip();
        return StandardCharsets.ISO_8859_1.decode(out).toString();
    }

    private static ByteBuffer direct(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length);
        buffer.put(bytes).flip();
        return buffer;
    }
}
