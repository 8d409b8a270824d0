package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Content-Type table and the test that tells text from binary for names without extension. */
class MimeTypesTest {
    private final MimeTypes types = MimeTypes.defaults();

    @Test
    void textTypesAddedWithoutCharsetGetUtf8() {
        assertEquals(
                "text/x-log; charset=utf-8", types.with("log", "text/x-log").contentType("a.log"));
        assertEquals(
                "text/plain; charset=iso-8859-1",
                types.with("txt", "text/plain; charset=iso-8859-1").contentType("a.txt"));
        assertEquals("image/avif", types.with("avif", "image/avif").contentType("a.AVIF"));
    }

    @Test
    void namesWithoutExtensionAreKnownOnlyWhenUsuallyText() {
        assertEquals("text/plain; charset=utf-8", types.contentType("docs/README"));
        assertEquals("text/plain; charset=utf-8", types.contentType("makefile"));
        assertEquals(MimeTypes.DEFAULT_TYPE, types.contentType("bin/program"));
        assertEquals(MimeTypes.DEFAULT_TYPE, types.contentType("archive."));
        assertTrue(MimeTypes.hasNoExtension("dir.d/README"));
        assertFalse(MimeTypes.hasNoExtension("dir/README.txt"));
    }

    @Test
    void badMappingsNameTheValue() {
        IllegalArgumentException type = assertThrows(IllegalArgumentException.class, () -> types.with("ts", "plain"));
        assertTrue(type.getMessage().contains("'plain'"), type.getMessage());
        IllegalArgumentException extension =
                assertThrows(IllegalArgumentException.class, () -> types.with("tar.gz", "application/gzip"));
        assertTrue(extension.getMessage().contains("'tar.gz'"), extension.getMessage());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"", "plain ASCII\n", "tabs\tand\r\nlines\f", "caf\u00e9 \u20ac \ud83d\ude00", "\u001b[1mbold"})
    void utf8TextLooksLikeText(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        assertTrue(MimeTypes.looksLikeText(bytes, bytes.length));
    }

    @Test
    void aSequenceCutByTheEndOfTheSampleIsStillText() {
        byte[] euro = "\u20ac".getBytes(StandardCharsets.UTF_8);
        assertTrue(MimeTypes.looksLikeText(euro, 2));
    }

    @Test
    void binaryAndOtherEncodingsDoNot() {
        assertFalse(MimeTypes.looksLikeText(new byte[] {'a', 0, 'b'}, 3), "NUL");
        assertFalse(MimeTypes.looksLikeText(new byte[] {'a', 7}, 2), "BEL");
        assertFalse(MimeTypes.looksLikeText(new byte[] {'c', (byte) 0xE9, 'x'}, 3), "ISO-8859-1");
        assertFalse(MimeTypes.looksLikeText(new byte[] {(byte) 0xC0, (byte) 0xAE}, 2), "overlong");
        assertFalse(MimeTypes.looksLikeText(new byte[] {(byte) 0x80}, 1), "a lone continuation byte");
    }
}
