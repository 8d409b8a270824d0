package dev.quarry.http.h2;

import static dev.quarry.http.h2.Frames.ACK;
import static dev.quarry.http.h2.Frames.CONTINUATION;
import static dev.quarry.http.h2.Frames.DATA;
import static dev.quarry.http.h2.Frames.END_HEADERS;
import static dev.quarry.http.h2.Frames.END_STREAM;
import static dev.quarry.http.h2.Frames.GOAWAY;
import static dev.quarry.http.h2.Frames.HEADERS;
import static dev.quarry.http.h2.Frames.PADDED;
import static dev.quarry.http.h2.Frames.PING;
import static dev.quarry.http.h2.Frames.PRIORITY;
import static dev.quarry.http.h2.Frames.PRIORITY_FLAG;
import static dev.quarry.http.h2.Frames.PUSH_PROMISE;
import static dev.quarry.http.h2.Frames.RST_STREAM;
import static dev.quarry.http.h2.Frames.SETTINGS;
import static dev.quarry.http.h2.Frames.WINDOW_UPDATE;
import static dev.quarry.http.h2.Frames.bytes;
import static dev.quarry.http.h2.Frames.concat;
import static dev.quarry.http.h2.Frames.frame;
import static dev.quarry.http.h2.Frames.int32;
import static dev.quarry.http.h2.Frames.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2test.FrameEvent;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The frame-level rules of RFC 9113 sections 4 and 6, one row each: the bytes a peer sends (after a valid preface and
 * SETTINGS) and the error the parser must report, as a connection error (GOAWAY) or a stream error (RST_STREAM).
 */
class FrameParserRulesTest {

    /** A rule: what is sent, and what must be reported; stream 0 means a connection error. */
    record Rule(String name, Function<Harness, byte[]> bytes, ErrorCode error, int streamId) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Rule connection(String name, byte[] bytes, ErrorCode error) {
        return new Rule(name, h -> bytes, error, 0);
    }

    private static Rule connection(String name, Function<Harness, byte[]> bytes, ErrorCode error) {
        return new Rule(name, bytes, error, 0);
    }

    private static Rule stream(String name, int streamId, byte[] bytes, ErrorCode error) {
        return new Rule(name, h -> bytes, error, streamId);
    }

    private static Rule stream(String name, int streamId, Function<Harness, byte[]> bytes, ErrorCode error) {
        return new Rule(name, bytes, error, streamId);
    }

    static Stream<Arguments> serverRules() {
        ErrorCode protocol = ErrorCode.PROTOCOL_ERROR;
        ErrorCode frameSize = ErrorCode.FRAME_SIZE_ERROR;
        return Stream.of(
                        // 4.2 frame size
                        connection("DATA larger than max frame size", frame(DATA, 0, 1, zeros(16_385)), frameSize),
                        connection(
                                "HEADERS larger than max frame size",
                                frame(HEADERS, END_HEADERS, 1, zeros(16_385)),
                                frameSize),
                        connection(
                                "length field beyond max frame size, payload not yet sent",
                                frame(16_385, SETTINGS, 0, 0, new byte[0]),
                                frameSize),
                        connection(
                                "unknown type larger than max frame size", frame(0x20, 0, 0, zeros(20_000)), frameSize),
                        // 6.1 DATA
                        connection("DATA on stream 0", frame(DATA, 0, 0, bytes(1, 2)), protocol),
                        connection(
                                "DATA with padding as long as the payload",
                                frame(DATA, PADDED, 1, bytes(4, 0, 0, 0)),
                                protocol),
                        connection("DATA padded without pad length", frame(DATA, PADDED, 1, new byte[0]), frameSize),
                        // 6.2 HEADERS
                        connection(
                                "HEADERS on stream 0",
                                h -> frame(HEADERS, END_HEADERS, 0, h.block(Frames.get("/"))),
                                protocol),
                        connection(
                                "HEADERS on an even stream from a client",
                                h -> frame(HEADERS, END_HEADERS, 2, h.block(Frames.get("/"))),
                                protocol),
                        connection(
                                "HEADERS with padding longer than the rest",
                                h -> frame(
                                        HEADERS, END_HEADERS | PADDED, 1, concat(bytes(200), h.block(Frames.get("/")))),
                                protocol),
                        connection(
                                "HEADERS padding eating the priority fields",
                                frame(HEADERS, END_HEADERS | PADDED | PRIORITY_FLAG, 1, bytes(3, 0, 0, 0, 0, 15)),
                                protocol),
                        connection(
                                "HEADERS with PRIORITY but fewer than 5 octets",
                                frame(HEADERS, END_HEADERS | PRIORITY_FLAG, 1, bytes(0, 0, 0)),
                                frameSize),
                        stream(
                                "HEADERS depending on its own stream",
                                3,
                                h -> frame(
                                        HEADERS,
                                        END_HEADERS | PRIORITY_FLAG,
                                        3,
                                        concat(int32(3), bytes(15), h.block(Frames.get("/")))),
                                protocol),
                        // 6.3 PRIORITY
                        connection("PRIORITY on stream 0", frame(PRIORITY, 0, 0, bytes(0, 0, 0, 1, 15)), protocol),
                        stream("PRIORITY of 4 octets", 1, frame(PRIORITY, 0, 1, bytes(0, 0, 0, 3)), frameSize),
                        stream("PRIORITY of 6 octets", 1, frame(PRIORITY, 0, 1, bytes(0, 0, 0, 3, 15, 0)), frameSize),
                        stream(
                                "PRIORITY depending on itself",
                                5,
                                frame(PRIORITY, 0, 5, bytes(0, 0, 0, 5, 15)),
                                protocol),
                        stream(
                                "PRIORITY depending on itself, exclusive",
                                5,
                                frame(PRIORITY, 0, 5, bytes(0x80, 0, 0, 5, 15)),
                                protocol),
                        // 6.4 RST_STREAM
                        connection("RST_STREAM on stream 0", frame(RST_STREAM, 0, 0, int32(8)), protocol),
                        connection("RST_STREAM of 3 octets", frame(RST_STREAM, 0, 1, bytes(0, 0, 8)), frameSize),
                        connection("RST_STREAM of 5 octets", frame(RST_STREAM, 0, 1, bytes(0, 0, 0, 8, 0)), frameSize),
                        // 6.5 SETTINGS
                        connection("SETTINGS on a stream", frame(SETTINGS, 0, 1, new byte[0]), protocol),
                        connection("SETTINGS ACK with a payload", frame(SETTINGS, ACK, 0, zeros(6)), frameSize),
                        connection("SETTINGS of 5 octets", frame(SETTINGS, 0, 0, zeros(5)), frameSize),
                        connection("SETTINGS of 7 octets", frame(SETTINGS, 0, 0, zeros(7)), frameSize),
                        connection("ENABLE_PUSH of 2", Frames.settings(2, 2), protocol),
                        connection(
                                "INITIAL_WINDOW_SIZE of 2^31",
                                Frames.settings(4, 0x8000_0000L),
                                ErrorCode.FLOW_CONTROL_ERROR),
                        connection(
                                "INITIAL_WINDOW_SIZE of 2^32-1",
                                Frames.settings(4, 0xFFFF_FFFFL),
                                ErrorCode.FLOW_CONTROL_ERROR),
                        connection("MAX_FRAME_SIZE of 16383", Frames.settings(5, 16_383), protocol),
                        connection("MAX_FRAME_SIZE of 2^24", Frames.settings(5, 16_777_216), protocol),
                        connection("ENABLE_CONNECT_PROTOCOL of 2", Frames.settings(8, 2), protocol),
                        connection("an invalid value after valid ones", Frames.settings(1, 100, 3, 10, 2, 7), protocol),
                        // 6.6 PUSH_PROMISE
                        connection(
                                "PUSH_PROMISE from a client",
                                h -> frame(PUSH_PROMISE, END_HEADERS, 1, concat(int32(2), h.block(Frames.get("/")))),
                                protocol),
                        // 6.7 PING
                        connection("PING on a stream", frame(PING, 0, 1, zeros(8)), protocol),
                        connection("PING of 7 octets", frame(PING, 0, 0, zeros(7)), frameSize),
                        connection("PING of 9 octets", frame(PING, 0, 0, zeros(9)), frameSize),
                        connection("PING ACK of 0 octets", frame(PING, ACK, 0, new byte[0]), frameSize),
                        // 6.8 GOAWAY
                        connection("GOAWAY on a stream", frame(GOAWAY, 0, 1, zeros(8)), protocol),
                        connection("GOAWAY of 7 octets", frame(GOAWAY, 0, 0, zeros(7)), frameSize),
                        // 6.9 WINDOW_UPDATE
                        connection(
                                "WINDOW_UPDATE of 3 octets on the connection",
                                frame(WINDOW_UPDATE, 0, 0, bytes(0, 0, 1)),
                                frameSize),
                        connection(
                                "WINDOW_UPDATE of 5 octets on a stream",
                                frame(WINDOW_UPDATE, 0, 1, bytes(0, 0, 0, 1, 0)),
                                frameSize),
                        connection(
                                "WINDOW_UPDATE of 0 on the connection", frame(WINDOW_UPDATE, 0, 0, int32(0)), protocol),
                        stream("WINDOW_UPDATE of 0 on a stream", 1, frame(WINDOW_UPDATE, 0, 1, int32(0)), protocol),
                        stream(
                                "WINDOW_UPDATE of 0 with the reserved bit set",
                                1,
                                frame(WINDOW_UPDATE, 0, 1, int32(0x8000_0000)),
                                protocol),
                        // 6.10 CONTINUATION
                        connection(
                                "CONTINUATION without HEADERS",
                                frame(CONTINUATION, END_HEADERS, 1, new byte[0]),
                                protocol),
                        connection(
                                "CONTINUATION after a complete HEADERS",
                                h -> concat(
                                        h.headers(1, 0, Frames.get("/")),
                                        frame(CONTINUATION, END_HEADERS, 1, new byte[0])),
                                protocol),
                        connection(
                                "CONTINUATION on stream 0",
                                h -> concat(
                                        frame(HEADERS, 0, 1, h.block(Frames.get("/"))),
                                        frame(CONTINUATION, END_HEADERS, 0, new byte[0])),
                                protocol),
                        connection(
                                "CONTINUATION on another stream",
                                h -> concat(
                                        frame(HEADERS, 0, 1, h.block(Frames.get("/"))),
                                        frame(CONTINUATION, END_HEADERS, 3, new byte[0])),
                                protocol),
                        connection(
                                "PRIORITY inside a header block",
                                h -> concat(
                                        frame(HEADERS, 0, 1, h.block(Frames.get("/"))),
                                        frame(PRIORITY, 0, 1, bytes(0, 0, 0, 0, 15))),
                                protocol),
                        connection(
                                "DATA inside a header block",
                                h -> concat(
                                        frame(HEADERS, 0, 1, h.block(Frames.get("/"))), frame(DATA, 0, 1, bytes(1))),
                                protocol),
                        connection(
                                "HEADERS of another stream inside a header block",
                                h -> concat(
                                        frame(HEADERS, 0, 1, h.block(Frames.get("/"))),
                                        h.headers(3, END_STREAM, Frames.get("/"))),
                                protocol),
                        connection(
                                "an unknown frame type inside a header block",
                                h -> concat(
                                        frame(HEADERS, 0, 1, h.block(Frames.get("/"))), frame(0x20, 0, 1, zeros(4))),
                                protocol),
                        connection(
                                "PING inside a header block",
                                h -> concat(
                                        frame(HEADERS, 0, 1, h.block(Frames.get("/"))), frame(PING, 0, 0, zeros(8))),
                                protocol),
                        // 4.3 header compression
                        connection(
                                "an invalid HPACK index",
                                frame(HEADERS, END_HEADERS, 1, bytes(0xFF, 0x7F)),
                                ErrorCode.COMPRESSION_ERROR),
                        connection(
                                "a truncated HPACK literal",
                                frame(HEADERS, END_HEADERS, 1, bytes(0x40, 0x05, 'a')),
                                ErrorCode.COMPRESSION_ERROR),
                        connection(
                                "a table size update above SETTINGS_HEADER_TABLE_SIZE",
                                frame(HEADERS, END_HEADERS, 1, bytes(0x3F, 0xE2, 0x1F, 0x82)),
                                ErrorCode.COMPRESSION_ERROR))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("serverRules")
    void serverParserReportsTheRule(Rule rule) {
        Harness harness = Harness.server();
        List<FrameEvent> events = harness.feed(rule.bytes().apply(harness));
        FrameEvent last = events.get(events.size() - 1);
        Http2Exception error = rule.streamId() == 0
                ? Harness.connectionError(last, rule.error())
                : Harness.streamError(last, rule.streamId(), rule.error());
        assertTrue(error.getMessage().length() > 10, "the error names the problem: " + error);
        assertEquals(rule.streamId() == 0, harness.parser.isClosed(), "closed after a connection error only");
    }

    @Test
    void continuationAfterDataIsAProtocolError() {
        Harness harness = Harness.server();
        List<FrameEvent> events = harness.feed(concat(
                frame(DATA, 0, 1, bytes(1, 2, 3)),
                frame(CONTINUATION, END_HEADERS, 1, harness.block(Frames.get("/")))));
        assertInstanceOf(FrameEvent.Data.class, events.get(0));
        Harness.connectionError(events.get(1), ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void aStreamErrorLeavesTheParserOpenForTheNextFrame() {
        Harness harness = Harness.server();
        List<FrameEvent> events =
                harness.feed(concat(frame(PRIORITY, 0, 1, bytes(0, 0, 0, 3)), frame(PING, 0, 0, zeros(8))));
        Harness.streamError(events.get(0), 1, ErrorCode.FRAME_SIZE_ERROR);
        assertInstanceOf(FrameEvent.Ping.class, events.get(1));
        assertFalse(harness.parser.isClosed());
    }

    @Test
    void aSelfDependentHeadersBlockIsStillDecodedSoThatTheTableStaysInStep() {
        Harness harness = Harness.server();
        String[] fields = Frames.with(Frames.get("/"), "x-custom", "value-to-index");
        byte[] first =
                frame(HEADERS, END_HEADERS | PRIORITY_FLAG, 3, concat(int32(3), bytes(15), harness.block(fields)));
        // The second block refers to the dynamic table entry the first one added.
        byte[] second = harness.headers(5, END_STREAM, fields);
        List<FrameEvent> events = harness.feed(concat(first, second));
        Harness.streamError(events.get(0), 3, ErrorCode.PROTOCOL_ERROR);
        FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, events.get(1));
        assertEquals("value-to-index", headers.block().fields().get("x-custom").orElseThrow());
    }

    @Test
    void afterAConnectionErrorTheParserParsesNothing() {
        Harness harness = Harness.server();
        byte[] bytes = concat(frame(PING, 0, 1, zeros(8)), frame(PING, 0, 0, zeros(8)));
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        assertTrue(harness.parser.parseFrame(buffer));
        assertTrue(harness.parser.isClosed());
        assertFalse(harness.parser.parseFrame(buffer));
        assertEquals(1, harness.recorder.events().size());
    }

    @Test
    void aServerSendingEnablePushOfOneIsAProtocolErrorForAClient() {
        Harness harness = Harness.client();
        Harness.connectionError(harness.one(Frames.settings(2, 1)), ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void aClientMayReceivePushPromiseAndItsBlockIsDecodedAsARequest() {
        Harness harness = Harness.client();
        byte[] block = harness.block(Frames.get("/pushed"));
        FrameEvent event =
                harness.one(frame(PUSH_PROMISE, END_HEADERS | PADDED, 1, concat(bytes(2), int32(2), block, zeros(2))));
        FrameEvent.PushPromise push = assertInstanceOf(FrameEvent.PushPromise.class, event);
        assertEquals(1, push.streamId());
        assertEquals(2, push.promisedStreamId());
        assertEquals("/pushed", push.block().path());
        assertTrue(push.block().malformed().isEmpty());
    }

    @Test
    void pushPromiseOnStreamZeroIsAProtocolErrorForAClient() {
        Harness harness = Harness.client();
        byte[] block = harness.block(Frames.get("/pushed"));
        Harness.connectionError(
                harness.one(frame(PUSH_PROMISE, END_HEADERS, 0, concat(int32(2), block))), ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void pushPromiseTooShortForThePromisedStreamIsAFrameSizeError() {
        Harness harness = Harness.client();
        Harness.connectionError(
                harness.one(frame(PUSH_PROMISE, END_HEADERS, 1, bytes(0, 0, 2))), ErrorCode.FRAME_SIZE_ERROR);
    }
}
