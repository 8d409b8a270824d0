package dev.quarry.http.h2;

import static dev.quarry.http.h2.Frames.CONTINUATION;
import static dev.quarry.http.h2.Frames.DATA;
import static dev.quarry.http.h2.Frames.END_HEADERS;
import static dev.quarry.http.h2.Frames.END_STREAM;
import static dev.quarry.http.h2.Frames.HEADERS;
import static dev.quarry.http.h2.Frames.concat;
import static dev.quarry.http.h2.Frames.frame;
import static dev.quarry.http.h2.Frames.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackLimits;
import dev.quarry.http.hpack.HpackOutput;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The examples of RFC 9113 8.8 (HTTP/1.1 messages and the HTTP/2 frames they become) and the header blocks of RFC 7541
 * appendix C carried in HEADERS frames of one connection.
 */
class RfcExamplesTest {

    private static final byte[] BINARY = new byte[123];

    /** Encodes fields, in a block that may be cut after {@code cut} fields: returns {whole block, cut offset}. */
    private static Object[] block(HpackEncoder encoder, int cut, String... nameValues) {
        HpackOutput out = new HpackOutput();
        encoder.beginBlock(out);
        int offset = -1;
        for (int i = 0; i < nameValues.length; i += 2) {
            if (i / 2 == cut) {
                offset = out.size();
            }
            encoder.encodeField(out, nameValues[i], nameValues[i + 1], false);
        }
        return new Object[] {out.toByteArray(), offset};
    }

    @Test
    void simpleRequest() {
        Harness harness = Harness.server();
        byte[] block = harness.block(
                ":method",
                "GET",
                ":scheme",
                "https",
                ":authority",
                "example.org",
                ":path",
                "/resource",
                "host",
                "example.org",
                "accept",
                "image/jpeg");
        FrameEvent.Headers headers = assertInstanceOf(
                FrameEvent.Headers.class, harness.one(frame(HEADERS, END_STREAM | END_HEADERS, 1, block)));
        assertTrue(headers.endStream());
        RequestHead head = Http2Messages.request(1, headers.block());
        assertEquals("GET", head.method());
        assertEquals("example.org", head.authority());
        assertEquals("/resource", head.path());
        assertEquals("image/jpeg", head.fields().get(HttpHeader.ACCEPT).orElseThrow());
    }

    @Test
    void simpleResponse() {
        Harness harness = Harness.client();
        byte[] block = harness.block(":status", "304", "etag", "\"xyzzy\"", "expires", "Thu, 23 Jan 2014 12:00:00 GMT");
        FrameEvent.Headers headers = assertInstanceOf(
                FrameEvent.Headers.class, harness.one(frame(HEADERS, END_STREAM | END_HEADERS, 1, block)));
        assertEquals("304", headers.block().status());
        assertEquals("\"xyzzy\"", headers.block().fields().get(HttpHeader.ETAG).orElseThrow());
        assertTrue(headers.block().malformed().isEmpty());
    }

    @Test
    void complexRequestWithContinuationAndData() {
        Harness harness = Harness.server();
        Object[] cut = block(
                harness.peerEncoder,
                4,
                ":method",
                "POST",
                ":authority",
                "example.org",
                ":path",
                "/resource",
                ":scheme",
                "https",
                "content-type",
                "image/jpeg",
                "host",
                "example.org",
                "content-length",
                "123");
        byte[] block = (byte[]) cut[0];
        int offset = (int) cut[1];
        byte[] bytes = concat(
                frame(HEADERS, 0, 1, java.util.Arrays.copyOf(block, offset)),
                frame(CONTINUATION, END_HEADERS, 1, java.util.Arrays.copyOfRange(block, offset, block.length)),
                frame(DATA, END_STREAM, 1, BINARY));
        List<FrameEvent> events = harness.feed(bytes);
        assertEquals(2, events.size());
        FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, events.get(0));
        assertFalse(headers.endStream());
        RequestHead head = Http2Messages.request(1, headers.block());
        assertEquals("POST", head.method());
        assertEquals(123, head.contentLength());
        assertEquals(3, head.fields().size());
        FrameEvent.Data data = assertInstanceOf(FrameEvent.Data.class, events.get(1));
        assertTrue(data.endStream());
        assertArrayEquals(BINARY, data.data());
    }

    @Test
    void responseWithBody() {
        Harness harness = Harness.client();
        byte[] block = harness.block(":status", "200", "content-type", "image/jpeg", "content-length", "123");
        List<FrameEvent> events =
                harness.feed(concat(frame(HEADERS, END_HEADERS, 1, block), frame(DATA, END_STREAM, 1, BINARY)));
        assertEquals("200", ((FrameEvent.Headers) events.get(0)).block().status());
        assertEquals(123, ((FrameEvent.Data) events.get(1)).data().length);
    }

    @Test
    void informationalResponseThenTrailers() {
        Harness harness = Harness.client();
        byte[] informational = harness.block(":status", "100", "extension-field", "bar");
        byte[] head = harness.block(":status", "200", "content-type", "image/jpeg", "trailer", "Foo");
        byte[] trailers = harness.block("foo", "bar");
        List<FrameEvent> events = harness.feed(concat(
                frame(HEADERS, END_HEADERS, 1, informational),
                frame(HEADERS, END_HEADERS, 1, head),
                frame(DATA, 0, 1, BINARY),
                frame(DATA, 0, 1, BINARY),
                frame(HEADERS, END_STREAM | END_HEADERS, 1, trailers)));
        assertEquals(5, events.size());
        assertEquals("100", ((FrameEvent.Headers) events.get(0)).block().status());
        assertEquals(
                "Foo",
                ((FrameEvent.Headers) events.get(1))
                        .block()
                        .fields()
                        .get("trailer")
                        .orElseThrow());
        FrameEvent.Headers last = (FrameEvent.Headers) events.get(4);
        assertTrue(last.endStream());
        assertFalse(last.block().hasPseudoHeaders());
        assertEquals("bar", last.block().fields().get("foo").orElseThrow());
    }

    @Test
    void rfc7541RequestExamplesInHeadersFramesOfOneConnection() {
        for (String[] wires : new String[][] {
            {
                "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
                "8286 84be 5808 6e6f 2d63 6163 6865",
                "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"
            },
            {
                "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
                "8286 84be 5886 a8eb 1064 9cbf",
                "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"
            }
        }) {
            Harness harness = Harness.server();
            List<FrameEvent> events = harness.feed(concat(
                    frame(HEADERS, END_STREAM | END_HEADERS, 1, hex(wires[0])),
                    frame(HEADERS, END_STREAM | END_HEADERS, 3, hex(wires[1])),
                    frame(HEADERS, END_STREAM | END_HEADERS, 5, hex(wires[2]))));
            RequestHead first = Http2Messages.request(1, ((FrameEvent.Headers) events.get(0)).block());
            assertEquals("http", first.scheme());
            assertEquals("www.example.com", first.authority());
            RequestHead second = Http2Messages.request(3, ((FrameEvent.Headers) events.get(1)).block());
            assertEquals(
                    "no-cache", second.fields().get(HttpHeader.CACHE_CONTROL).orElseThrow());
            RequestHead third = Http2Messages.request(5, ((FrameEvent.Headers) events.get(2)).block());
            assertEquals("https", third.scheme());
            assertEquals("/index.html", third.path());
            assertEquals(HttpFields.of(new dev.quarry.http.HttpField("custom-key", "custom-value")), third.fields());
        }
    }

    @Test
    void rfc7541ResponseExamplesWithA256OctetTable() {
        String[] wires = {
            "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32"
                    + "3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "4803 3330 37c1 c0bf",
            "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970"
                    + "7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d"
                    + "6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31"
        };
        dev.quarry.http.h2test.FrameRecorder recorder = new dev.quarry.http.h2test.FrameRecorder();
        FrameParser parser = new FrameParser(
                FrameParser.Side.CLIENT,
                recorder,
                new HpackDecoder(256, HpackLimits.DEFAULT),
                FrameParser.Limits.DEFAULT);
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(concat(
                Frames.emptySettings(),
                frame(HEADERS, END_HEADERS, 1, hex(wires[0])),
                frame(HEADERS, END_HEADERS, 3, hex(wires[1])),
                frame(HEADERS, END_HEADERS, 5, hex(wires[2]))));
        while (parser.parseFrame(buffer)) {
            // one frame per call
        }
        List<FrameEvent> events = recorder.events();
        assertEquals(4, events.size());
        HeaderBlock second = ((FrameEvent.Headers) events.get(2)).block();
        assertEquals("307", second.status());
        assertEquals(
                "https://www.example.com",
                second.fields().get(HttpHeader.LOCATION).orElseThrow());
        HeaderBlock third = ((FrameEvent.Headers) events.get(3)).block();
        assertEquals("200", third.status());
        assertEquals("gzip", third.fields().get(HttpHeader.CONTENT_ENCODING).orElseThrow());
        assertEquals(
                "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
                third.fields().get(HttpHeader.SET_COOKIE).orElseThrow());
    }
}
