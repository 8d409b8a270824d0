package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HttpHeaderTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void everyHeaderIsFoundByItsNameInAnyCase() {
        for (HttpHeader header : HttpHeader.values()) {
            for (String name : new String[] {
                header.asString(), header.lowerCaseName(), header.asString().toUpperCase(Locale.ROOT)
            }) {
                assertSame(header, HttpHeader.lookup(name).orElseThrow(), name);
                byte[] framed = bytes("xx" + name + ":");
                assertSame(
                        header, HttpHeader.lookup(framed, 2, 2 + name.length()).orElseThrow(), name);
                ByteBuffer direct = ByteBuffer.allocateDirect(framed.length).put(framed);
                assertSame(
                        header, HttpHeader.lookup(direct, 2, 2 + name.length()).orElseThrow(), name);
            }
        }
    }

    @Test
    void unknownNamesAreEmpty() {
        for (String name :
                new String[] {"X-Unknown", "Hostx", "Hos", "", "Content-Lengthh", "a".repeat(300), "Ho\u00e9t"}) {
            assertEquals(Optional.empty(), HttpHeader.lookup(name), name);
            byte[] b = name.getBytes(StandardCharsets.UTF_8);
            assertEquals(Optional.empty(), HttpHeader.lookup(b, 0, b.length), name);
        }
    }

    @Test
    void lookupReturnsSharedOptionals() {
        assertSame(HttpHeader.lookup("host"), HttpHeader.lookup("HOST"));
        assertSame(HttpHeader.HOST.asOptional(), HttpHeader.lookup("Host"));
    }

    @Test
    void namesArePreEncoded() {
        assertArrayEquals(bytes("Content-Length: "), HttpHeader.CONTENT_LENGTH.prefixBytes());
        assertEquals("content-length", HttpHeader.CONTENT_LENGTH.lowerCaseName());
        assertArrayEquals(bytes("te"), HttpHeader.TE.lowerCaseBytes());
    }

    @Test
    void framingAndRoutingFieldsAreForbiddenInTrailers() {
        for (HttpHeader header : new HttpHeader[] {
            HttpHeader.CONTENT_LENGTH, HttpHeader.TRANSFER_ENCODING, HttpHeader.HOST, HttpHeader.CONNECTION,
            HttpHeader.TE, HttpHeader.TRAILER, HttpHeader.AUTHORIZATION, HttpHeader.CONTENT_TYPE
        }) {
            assertTrue(header.isForbiddenInTrailer(), header::toString);
        }
        assertTrue(!HttpHeader.SERVER.isForbiddenInTrailer());
    }

    @Test
    void lookupTableNeedsFewProbes() {
        assertTrue(HttpHeader.maxProbes() <= 4, "max probes " + HttpHeader.maxProbes());
    }

    @Test
    void onlyAsciiCaseFoldingMatches() {
        assertEquals(Optional.empty(), HttpHeader.lookup("\u212Aeep-Alive")); // KELVIN SIGN folds to 'k' in Java
        assertTrue(!HttpHeader.KEEP_ALIVE.is("\u212Aeep-Alive") && HttpHeader.KEEP_ALIVE.is("KEEP-alive"));
    }

    @Test
    void thereAreAboutSixtyWellKnownHeaders() {
        assertTrue(HttpHeader.values().length >= 60, "found " + HttpHeader.values().length);
    }
}
