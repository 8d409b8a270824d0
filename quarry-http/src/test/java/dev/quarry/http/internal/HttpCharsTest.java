package dev.quarry.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class HttpCharsTest {

    private static int naive(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    @Test
    void wordAtATimeLineFeedSearchMatchesTheNaiveOne() {
        Random random = new Random(7);
        byte[] alphabet = {(byte) 10, (byte) 13, (byte) 0x0B, (byte) 0x8A, 0, (byte) 0xFF, (byte) 97, (byte) 9, (byte) 1
        };
        for (int round = 0; round < 20_000; round++) {
            byte[] bytes = new byte[random.nextInt(40)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] =
                        random.nextInt(4) == 0 ? alphabet[random.nextInt(alphabet.length)] : (byte) random.nextInt(256);
            }
            int from = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
            int to = from + random.nextInt(bytes.length - from + 1);
            int expected = naive(bytes, from, to);
            assertEquals(expected, HttpChars.indexOfLf(bytes, from, to));
        }
    }

    @Test
    void wordAtATimeFieldContentCheckMatchesTheByteClasses() {
        Random random = new Random(11);
        byte[] alphabet = {(byte) 9, (byte) 13, 0, (byte) 0x7F, (byte) 0x80, (byte) 0xFF, (byte) 0x20, (byte) 0x1F};
        for (int round = 0; round < 20_000; round++) {
            byte[] bytes = new byte[random.nextInt(40)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = random.nextInt(10) == 0
                        ? alphabet[random.nextInt(alphabet.length)]
                        : (byte) (0x20 + random.nextInt(0x5F));
            }
            int expected = -1;
            for (int i = 0; i < bytes.length && expected < 0; i++) {
                if (!HttpChars.isFieldContent(bytes[i])) {
                    expected = i;
                }
            }
            assertEquals(expected, HttpChars.indexOfInvalidFieldContent(bytes, 0, bytes.length));
        }
    }

    @Test
    void byteClassesFollowTheGrammar() {
        for (char c : "!#$%&'*+-.^_`|~azAZ09".toCharArray()) {
            assertTrue(HttpChars.isTChar(c), "" + c);
        }
        for (char c : "\"(),/:;<=>?@[\\]{} \t\r\n\u0000\u007f".toCharArray()) {
            assertFalse(HttpChars.isTChar(c), "" + (int) c);
        }
        assertTrue(HttpChars.isFieldContent(' ') && HttpChars.isFieldContent('\t') && HttpChars.isFieldContent(0x80));
        assertFalse(HttpChars.isFieldContent('\r') || HttpChars.isFieldContent(0) || HttpChars.isFieldContent(0x7F));
        assertEquals(15, HttpChars.hexValue('f'));
        assertEquals(-1, HttpChars.hexValue('g'));
        assertEquals(-1, HttpChars.hexValue(0xB2)); // superscript two is not a HEXDIG
    }

    @Test
    void quotingEscapesAndTruncates() {
        byte[] bytes = "a\r\n\u0000\"\\".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertEquals("\"a\\r\\n\\x00\\\"\\\\\"", HttpChars.quote(bytes, 0, bytes.length));
        String quoted = HttpChars.quote("x".repeat(100));
        assertEquals(HttpChars.MAX_QUOTED + 5, quoted.length());
        assertTrue(quoted.endsWith("...\""));
        assertEquals("\"\\u2028\"", HttpChars.quote("\u2028"));
    }
}
