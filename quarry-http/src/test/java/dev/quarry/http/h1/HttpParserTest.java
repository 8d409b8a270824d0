package dev.quarry.http.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpMethod;
import dev.quarry.http.HttpVersion;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class HttpParserTest {

    private static ByteBuffer heap(String message) {
        return ByteBuffer.wrap(Feeder.bytes(message));
    }

    @Test
    void parsesOriginFormGet() {
        Recorder r = Feeder.parse("GET /index.html?q=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n");
        assertNull(r.failure);
        assertEquals(
                List.of(
                        "request GET /index.html?q=1 HTTP/1.1",
                        "header Host: example.com",
                        "header Accept: */*",
                        "headerComplete",
                        "contentComplete",
                        "messageComplete"),
                r.events);
    }

    @Test
    void parsesAbsoluteFormTarget() {
        Recorder r = Feeder.parse("GET http://example.com:8080/a/b?x=1 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n");
        assertEquals("request GET http://example.com:8080/a/b?x=1 HTTP/1.1", r.events.get(0));
        assertEquals("messageComplete", r.events.getLast());
    }

    @Test
    void parsesAuthorityFormConnect() {
        Recorder r = Feeder.parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
        assertEquals("request CONNECT example.com:443 HTTP/1.1", r.events.get(0));
        assertEquals("messageComplete", r.events.getLast());
    }

    @Test
    void parsesAsteriskFormOptions() {
        Recorder r = Feeder.parse("OPTIONS * HTTP/1.1\r\nHost: example.com\r\n\r\n");
        assertEquals("request OPTIONS * HTTP/1.1", r.events.get(0));
        assertEquals("messageComplete", r.events.getLast());
    }

    @Test
    void acceptsUnknownTokenMethods() {
        Recorder r = Feeder.parse("PROPFIND /dav HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals("request PROPFIND /dav HTTP/1.1", r.events.get(0));
    }

    @Test
    void standardMethodNamesAreInterned() {
        Recorder r = new Recorder() {
            @Override
            public void startRequest(String method, String target, HttpVersion version) {
                assertSame(HttpMethod.GET.asString(), method);
                super.startRequest(method, target, version);
            }
        };
        HttpParser parser = new HttpParser(r);
        parser.parse(heap("GET / HTTP/1.1\r\nHost: h\r\n\r\n"));
        assertEquals(HttpMethod.GET, parser.method().orElseThrow());
        assertEquals(HttpVersion.HTTP_1_1, parser.version().orElseThrow());
    }

    @Test
    void parsesContentLengthBody() {
        Recorder r = Feeder.parse("POST /form HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world");
        assertEquals(
                List.of(
                        "request POST /form HTTP/1.1",
                        "header Host: h",
                        "header Content-Length: 11",
                        "headerComplete",
                        "content hello world",
                        "contentComplete",
                        "messageComplete"),
                r.events);
    }

    @Test
    void parsesChunkedBodyWithExtensionsAndTrailers() {
        Recorder r = Feeder.parse("POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n"
                + "6 ; quoted=\"a \\\"b\\\" c\" ; flag\r\n world\r\n"
                + "0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n");
        assertNull(r.failure, () -> String.valueOf(r.failure));
        assertEquals(
                List.of(
                        "request POST /upload HTTP/1.1",
                        "header Host: h",
                        "header Transfer-Encoding: chunked",
                        "headerComplete",
                        "content hello world",
                        "contentComplete",
                        "trailer X-Checksum: abc",
                        "trailer X-Other: 1",
                        "messageComplete"),
                r.events);
    }

    @Test
    void chunkedAcceptsLargeHexSizesAndUpperCase() {
        String data = "x".repeat(0x1A);
        Recorder r = Feeder.parse(
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n1A\r\n" + data + "\r\n0\r\n\r\n");
        assertTrue(r.events.contains("content " + data), r.events::toString);
    }

    @Test
    void reportsFramingAccessors() {
        HttpParser parser = new HttpParser(new Recorder() {
            {
                stopAtHeaderComplete = true;
            }
        });
        parser.parse(heap("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"));
        assertEquals(3, parser.contentLength());
        assertFalse(parser.isChunked());
        assertTrue(parser.isPersistent());

        HttpParser chunked = new HttpParser(new Recorder() {
            {
                stopAtHeaderComplete = true;
            }
        });
        chunked.parse(heap("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"));
        assertEquals(-1, chunked.contentLength());
        assertTrue(chunked.isChunked());
    }

    @Test
    void expectContinueIsPassedThroughAndReported() {
        Recorder r = new Recorder();
        r.stopAtHeaderComplete = true;
        HttpParser parser = new HttpParser(r);
        ByteBuffer buffer = heap("PUT /f HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
        assertTrue(parser.parse(buffer), "stops at headerComplete");
        assertTrue(r.events.contains("header Expect: 100-continue"));
        assertTrue(parser.expectsContinue());
        // The server answers 100 Continue, then the client sends the body.
        assertFalse(parser.parse(ByteBuffer.allocate(0)));
        assertTrue(parser.parse(heap("ok")));
        assertEquals("messageComplete", r.events.getLast());
        assertTrue(r.events.contains("content ok"));
    }

    @Test
    void http10IsNotPersistentByDefaultAndNeedsNoHost() {
        Recorder r = new Recorder();
        HttpParser parser = new HttpParser(r);
        parser.parse(heap("GET / HTTP/1.0\r\n\r\n"));
        assertEquals("messageComplete", r.events.getLast());
        assertFalse(parser.isPersistent());
    }

    @Test
    void http10KeepAliveIsPersistent() {
        HttpParser parser = new HttpParser(new Recorder());
        parser.parse(heap("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
        assertTrue(parser.isPersistent());
    }

    @Test
    void connectionCloseMakesHttp11NotPersistent() {
        HttpParser parser = new HttpParser(new Recorder());
        parser.parse(heap("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, close\r\n\r\n"));
        assertFalse(parser.isPersistent());
    }

    @Test
    void pipelinedRequestsAreParsedOneAtATimeInOrder() {
        Recorder r = new Recorder();
        HttpParser parser = new HttpParser(r);
        ByteBuffer buffer = heap("GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
                + "POST /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n");
        assertTrue(parser.parse(buffer));
        assertEquals("request GET /1 HTTP/1.1", r.events.get(0));
        assertEquals("messageComplete", r.events.getLast());
        assertTrue(buffer.hasRemaining());
        assertTrue(parser.isComplete());
        assertFalse(parser.parse(buffer), "parses nothing until reset");
        int before = r.events.size();
        assertEquals(before, r.events.size());

        parser.reset();
        assertTrue(parser.parse(buffer));
        assertTrue(r.events.contains("request POST /2 HTTP/1.1"));
        assertFalse(r.events.contains("request POST /3 HTTP/1.1"));
        assertTrue(r.events.contains("content abc"));

        parser.reset();
        assertTrue(parser.parse(buffer));
        assertTrue(r.events.contains("request POST /3 HTTP/1.1"));
        assertTrue(r.events.contains("content z"));
        assertFalse(buffer.hasRemaining());

        parser.reset();
        assertTrue(parser.isStart());
        assertTrue(parser.isIdle());
    }

    @Test
    void keepAliveConnectionReusesCachedAndLearnedFields() {
        Recorder r = new Recorder();
        HttpParser parser = new HttpParser(r);
        String request = "GET /plaintext HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: test/1.0\r\n"
                + "Connection: keep-alive\r\n\r\n";
        parser.parse(heap(request));
        List<HttpField> first = List.copyOf(r.fields);
        parser.reset();
        r.fields.clear();
        parser.parse(heap(request));
        List<HttpField> second = List.copyOf(r.fields);
        assertEquals(3, second.size());
        for (int i = 0; i < 3; i++) {
            assertSame(first.get(i), second.get(i), "same instance for " + first.get(i));
        }
        assertEquals(2, parser.learnedFieldCount(), "Host and User-Agent learned; Connection is static");
    }

    @Test
    void wellKnownNamesArriveCanonicalAndUnknownNamesAsReceived() {
        Recorder r = Feeder.parse("GET / HTTP/1.1\r\nhOST: h\r\nx-custom-Name: v\r\n\r\n");
        assertEquals("Host", r.fields.get(0).name());
        assertTrue(r.fields.get(0).is(HttpHeader.HOST));
        assertEquals("x-custom-Name", r.fields.get(1).name());
        assertTrue(r.fields.get(1).header().isEmpty());
    }

    @Test
    void fieldValuesAreTrimmedAndMayBeEmptyOrHoldObsText() {
        Recorder r = Feeder.parse(
                "GET / HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Spaces: \t a \t b \t\r\n" + "X-Latin: caf\u00e9\r\n\r\n");
        assertEquals("", r.fields.get(1).value());
        assertEquals("a \t b", r.fields.get(2).value());
        assertEquals("caf\u00e9", r.fields.get(3).value());
    }

    @Test
    void leadingEmptyLinesAreIgnored() {
        Recorder r = Feeder.parse("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals("request GET / HTTP/1.1", r.events.get(0));
        assertEquals("messageComplete", r.events.getLast());
    }

    @Test
    void stopsAfterHeaderCompleteUntilCalledAgain() {
        Recorder r = new Recorder();
        r.stopAtHeaderComplete = true;
        HttpParser parser = new HttpParser(r);
        ByteBuffer buffer = heap("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nbody");
        assertTrue(parser.parse(buffer));
        assertEquals("headerComplete", r.events.getLast());
        assertEquals(4, buffer.remaining(), "content not consumed yet");
        assertTrue(parser.parse(buffer));
        assertEquals("messageComplete", r.events.getLast());
    }

    @Test
    void contentCallbackAppliesBackPressure() {
        Recorder r = new Recorder();
        r.stopAtContent = true;
        HttpParser parser = new HttpParser(r);
        ByteBuffer buffer = heap("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n");
        assertTrue(parser.parse(buffer));
        assertEquals("content abc", r.events.getLast());
        int remaining = buffer.remaining();
        assertTrue(remaining > 0, "the second chunk is left in the buffer");
        assertTrue(parser.parse(buffer));
        assertEquals("content abcdef", r.events.getLast());
        assertTrue(parser.parse(buffer));
        assertEquals("messageComplete", r.events.getLast());
    }

    @Test
    void contentIsASliceValidUntilTheBufferIsReused() {
        ByteBuffer[] seen = new ByteBuffer[1];
        Recorder r = new Recorder() {
            @Override
            public boolean content(ByteBuffer chunk) {
                seen[0] = chunk;
                return super.content(chunk.duplicate());
            }
        };
        HttpParser parser = new HttpParser(r);
        ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        buffer.put(Feeder.bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi"))
                .flip();
        parser.parse(buffer);
        assertTrue(seen[0].isDirect());
        assertEquals(2, seen[0].remaining());
    }

    @Test
    void parsesFromSlicedAndReadOnlyBuffers() {
        String request = "POST /s HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc";
        List<String> expected = Feeder.parse(request).events;
        byte[] padded = Feeder.bytes("garbage" + request + "trailing");
        ByteBuffer slice = ByteBuffer.wrap(padded, 7, request.length()).slice();
        ByteBuffer readOnly = ByteBuffer.wrap(Feeder.bytes(request)).asReadOnlyBuffer();
        for (ByteBuffer buffer : List.of(slice, readOnly)) {
            Recorder r = new Recorder();
            new HttpParser(r).parse(buffer);
            assertEquals(expected, r.events);
            assertFalse(buffer.hasRemaining());
        }
    }

    @Test
    void detectsHttp2PrefaceAndLeavesBufferRightAfterIt() {
        Recorder r = new Recorder();
        HttpParser parser = new HttpParser(r);
        ByteBuffer buffer = heap("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u0000\u0000\u0012\u0004");
        assertTrue(parser.parse(buffer));
        assertEquals(List.of("http2Preface"), r.events);
        assertEquals(24, buffer.position(), "positioned right after the 24-byte preface");
        assertEquals(HttpParser.State.HTTP2, parser.state());
        assertFalse(parser.parse(buffer), "the parser is done");
        assertEquals(24, buffer.position());
    }

    @Test
    void prefaceIsRejectedWith505WhenHttp2IsNotEnabled() {
        Recorder r = new Recorder();
        r.prefaceAccepted = false;
        new HttpParser(r).parse(heap("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
        assertEquals(505, r.failure.status());
    }

    @Test
    void partialPrefaceWaitsForMoreBytes() {
        Recorder r = new Recorder();
        HttpParser parser = new HttpParser(r);
        assertFalse(parser.parse(heap("PRI * HTTP/2.0\r\n\r\nS")));
        assertEquals(0, r.prefaces);
        ByteBuffer rest = heap("M\r\n\r\nXYZ");
        assertTrue(parser.parse(rest));
        assertEquals(1, r.prefaces);
        assertEquals(5, rest.position());
    }

    @Test
    void eofBetweenMessagesClosesQuietly() {
        Recorder r = new Recorder();
        HttpParser parser = new HttpParser(r);
        parser.atEOF();
        assertFalse(parser.parse(ByteBuffer.allocate(0)));
        assertTrue(parser.isClosed());
        assertTrue(r.events.isEmpty());
    }

    @Test
    void eofInsideAMessageIsReportedAsEarlyEof() {
        for (String partial : List.of(
                "GET / HT",
                "GET / HTTP/1.1\r\nHost: h\r\n",
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nab",
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: y\r\n")) {
            Recorder r = Feeder.parse(Feeder.bytes(partial), HttpParserConfig.DEFAULT, List.of(), false, true);
            assertEquals("earlyEOF", r.events.getLast(), partial);
        }
    }

    @Test
    void eofAfterACompleteMessageIsClean() {
        Recorder r = Feeder.parse(
                Feeder.bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), HttpParserConfig.DEFAULT, List.of(), false, true);
        assertEquals("messageComplete", r.events.getLast());
    }

    @Test
    void staysClosedAfterABadMessage() {
        Recorder r = new Recorder();
        HttpParser parser = new HttpParser(r);
        assertTrue(parser.parse(heap("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")));
        assertTrue(parser.isClosed());
        assertFalse(parser.isPersistent());
        parser.reset();
        assertTrue(parser.isClosed());
        assertFalse(parser.parse(heap("GET / HTTP/1.1\r\nHost: h\r\n\r\n")));
        assertEquals(
                1, r.events.stream().filter(e -> e.startsWith("badMessage")).count());
    }

    @Test
    void listenerMayRejectAFieldWithBadMessageException() {
        Recorder r = new Recorder() {
            @Override
            public void header(HttpField field) {
                if (field.is("X-Forbidden")) {
                    throw new dev.quarry.http.BadMessageException(400, "X-Forbidden is forbidden");
                }
                super.header(field);
            }
        };
        new HttpParser(r).parse(heap("GET / HTTP/1.1\r\nHost: h\r\nX-Forbidden: 1\r\n\r\n"));
        assertEquals("X-Forbidden is forbidden", r.failure.reason());
    }

    @Test
    void expectContinueIsIgnoredInHttp10() {
        HttpParser parser = new HttpParser(new Recorder());
        parser.parse(heap("PUT /f HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n"));
        assertTrue(parser.isComplete());
        assertFalse(parser.expectsContinue());
    }

    @Test
    void resetInTheMiddleOfAMessageIsRefused() {
        Recorder r = new Recorder();
        r.stopAtHeaderComplete = true;
        HttpParser parser = new HttpParser(r);
        parser.parse(heap("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"));
        assertThrows(IllegalStateException.class, parser::reset);
        HttpParser partial = new HttpParser(new Recorder());
        partial.parse(heap("GET / HT"));
        assertThrows(IllegalStateException.class, partial::reset);
        HttpParser fresh = new HttpParser(new Recorder());
        fresh.reset();
        assertTrue(fresh.isStart());
    }

    @Test
    void toStringShowsStateAndRequest() {
        HttpParser parser = new HttpParser(new Recorder() {
            {
                stopAtHeaderComplete = true;
            }
        });
        parser.parse(heap("GET /x HTTP/1.1\r\nHost: h\r\n\r\n"));
        String text = parser.toString();
        assertTrue(text.contains("GET /x HTTP/1.1") && text.contains("CONTENT_END"), text);
    }
}
