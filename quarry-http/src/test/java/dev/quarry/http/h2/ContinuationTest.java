package dev.quarry.http.h2;

import static dev.quarry.http.h2.Frames.CONTINUATION;
import static dev.quarry.http.h2.Frames.END_HEADERS;
import static dev.quarry.http.h2.Frames.END_STREAM;
import static dev.quarry.http.h2.Frames.HEADERS;
import static dev.quarry.http.h2.Frames.PADDED;
import static dev.quarry.http.h2.Frames.PRIORITY_FLAG;
import static dev.quarry.http.h2.Frames.bytes;
import static dev.quarry.http.h2.Frames.concat;
import static dev.quarry.http.h2.Frames.frame;
import static dev.quarry.http.h2.Frames.int32;
import static dev.quarry.http.h2.Frames.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.http.h2test.FrameEvent;
import dev.quarry.http.hpack.HpackLimits;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Header blocks split over HEADERS and CONTINUATION (RFC 9113 4.3, 6.10), and the limits against floods (10.5). */
class ContinuationTest {

    /** HEADERS with the first {@code split} octets of the block, then CONTINUATION frames of {@code step} octets. */
    private static byte[] split(int streamId, byte[] block, int split, int step, int firstFlags) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int first = Math.min(split, block.length);
        boolean done = first == block.length;
        out.writeBytes(
                frame(HEADERS, firstFlags | (done ? END_HEADERS : 0), streamId, Arrays.copyOfRange(block, 0, first)));
        for (int at = first; at < block.length; at += step) {
            int end = Math.min(block.length, at + step);
            out.writeBytes(frame(
                    CONTINUATION, end == block.length ? END_HEADERS : 0, streamId, Arrays.copyOfRange(block, at, end)));
        }
        return out.toByteArray();
    }

    @Test
    void aBlockSplitAtEveryOctetDecodesTheSame() {
        String[] fields = Frames.with(
                Frames.get("/a/path?with=query"),
                "user-agent",
                "test/1.0",
                "accept-language",
                "en",
                "x-long",
                "z".repeat(100));
        byte[] block = Frames.block(
                new dev.quarry.http.hpack.HpackEncoder(0, true, dev.quarry.http.hpack.HpackEncoder.DEFAULT_POLICY),
                fields);
        for (int split = 0; split <= block.length; split++) {
            Harness harness = Harness.server();
            FrameEvent event = harness.one(split(1, block, split, Math.max(1, block.length - split), END_STREAM));
            FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, event, "split at " + split);
            assertEquals("/a/path?with=query", headers.block().path());
            assertEquals("z".repeat(100), headers.block().fields().get("x-long").orElseThrow());
            assertTrue(headers.endStream(), "END_STREAM of the HEADERS frame applies to the block");
        }
    }

    @Test
    void aBlockInOneOctetContinuationsDecodes() {
        Harness harness = new Harness(
                FrameParser.Side.SERVER, new FrameParser.Limits(16_384, 64 * 1024, 1000), HpackLimits.DEFAULT, true);
        byte[] block = harness.block(Frames.with(Frames.get("/"), "x-a", "1", "x-b", "2"));
        FrameEvent.Headers headers = assertInstanceOf(FrameEvent.Headers.class, harness.one(split(1, block, 1, 1, 0)));
        assertEquals("2", headers.block().fields().get("x-b").orElseThrow());
    }

    @Test
    void emptyFragmentsAreAllowed() {
        Harness harness = Harness.server();
        byte[] block = harness.block(Frames.get("/"));
        byte[] bytes = concat(
                frame(HEADERS, 0, 1, new byte[0]),
                frame(CONTINUATION, 0, 1, block),
                frame(CONTINUATION, END_HEADERS, 1, new byte[0]));
        assertInstanceOf(FrameEvent.Headers.class, harness.one(bytes));
    }

    @Test
    void paddingAndPriorityOfTheHeadersFrameAreNotPartOfTheBlock() {
        Harness harness = Harness.server();
        byte[] block = harness.block(Frames.get("/padded"));
        byte[] headers = frame(
                HEADERS,
                PADDED | PRIORITY_FLAG,
                1,
                concat(bytes(3), int32(0), bytes(15), Arrays.copyOf(block, 4), zeros(3)));
        byte[] continuation = frame(CONTINUATION, END_HEADERS, 1, Arrays.copyOfRange(block, 4, block.length));
        FrameEvent.Headers decoded =
                assertInstanceOf(FrameEvent.Headers.class, harness.one(concat(headers, continuation)));
        assertEquals("/padded", decoded.block().path());
    }

    @Test
    void aSelfDependencyInTheHeadersFrameIsReportedAfterTheLastContinuation() {
        Harness harness = Harness.server();
        byte[] block = harness.block(Frames.get("/"));
        byte[] headers = frame(HEADERS, PRIORITY_FLAG, 1, concat(int32(1), bytes(15), Arrays.copyOf(block, 2)));
        byte[] continuation = frame(CONTINUATION, END_HEADERS, 1, Arrays.copyOfRange(block, 2, block.length));
        Harness.streamError(harness.one(concat(headers, continuation)), 1, ErrorCode.PROTOCOL_ERROR);
    }

    @Test
    void moreContinuationFramesThanTheLimitIsEnhanceYourCalm() {
        Harness harness = new Harness(
                FrameParser.Side.SERVER, new FrameParser.Limits(16_384, 64 * 1024, 4), HpackLimits.DEFAULT, true);
        byte[] block = harness.block(Frames.get("/"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(frame(HEADERS, 0, 1, block));
        for (int i = 0; i < 5; i++) {
            out.writeBytes(frame(CONTINUATION, 0, 1, new byte[0]));
        }
        List<FrameEvent> events = harness.feed(out.toByteArray());
        assertEquals(1, events.size(), "nothing before the flood is cut: " + events);
        Http2Exception error = Harness.connectionError(events.get(0), ErrorCode.ENHANCE_YOUR_CALM);
        assertTrue(error.getMessage().contains("CONTINUATION"), error.getMessage());
    }

    @Test
    void exactlyTheLimitOfContinuationFramesIsAccepted() {
        Harness harness = new Harness(
                FrameParser.Side.SERVER, new FrameParser.Limits(16_384, 64 * 1024, 4), HpackLimits.DEFAULT, true);
        byte[] block = harness.block(Frames.get("/"));
        byte[] bytes = concat(
                frame(HEADERS, 0, 1, block),
                frame(CONTINUATION, 0, 1, new byte[0]),
                frame(CONTINUATION, 0, 1, new byte[0]),
                frame(CONTINUATION, 0, 1, new byte[0]),
                frame(CONTINUATION, END_HEADERS, 1, new byte[0]));
        assertInstanceOf(FrameEvent.Headers.class, harness.one(bytes));
    }

    @Test
    void aBlockLargerThanMaxHeaderBlockSizeIsEnhanceYourCalm() {
        Harness harness = new Harness(
                FrameParser.Side.SERVER, new FrameParser.Limits(16_384, 1000, 32), HpackLimits.DEFAULT, true);
        byte[] bytes = concat(
                frame(HEADERS, 0, 1, zeros(600)),
                frame(CONTINUATION, 0, 1, zeros(400)),
                frame(CONTINUATION, 0, 1, zeros(1)));
        List<FrameEvent> events = harness.feed(bytes);
        assertEquals(1, events.size());
        Harness.connectionError(events.get(0), ErrorCode.ENHANCE_YOUR_CALM);
    }

    @Test
    void aSingleHeadersFrameLargerThanMaxHeaderBlockSizeIsEnhanceYourCalm() {
        Harness harness = new Harness(
                FrameParser.Side.SERVER, new FrameParser.Limits(16_384, 100, 32), HpackLimits.DEFAULT, true);
        byte[] block = harness.block(Frames.with(Frames.get("/"), "x-big", "b".repeat(200)));
        Harness.connectionError(harness.one(frame(HEADERS, END_HEADERS, 1, block)), ErrorCode.ENHANCE_YOUR_CALM);
    }

    @Test
    void aBlockOfExactlyMaxHeaderBlockSizeIsAccepted() {
        Harness sizing = Harness.server();
        byte[] block = sizing.block(Frames.with(Frames.get("/"), "x-fill", "f".repeat(300)));
        Harness harness = new Harness(
                FrameParser.Side.SERVER, new FrameParser.Limits(16_384, block.length, 32), HpackLimits.DEFAULT, true);
        byte[] same = harness.block(Frames.with(Frames.get("/"), "x-fill", "f".repeat(300)));
        assertEquals(block.length, same.length);
        FrameEvent event = harness.one(split(1, same, 10, 50, END_STREAM));
        assertInstanceOf(FrameEvent.Headers.class, event);
    }

    @Test
    void aSplitPushPromiseIsDeliveredOnceComplete() {
        Harness harness = Harness.client();
        byte[] block = harness.block(Frames.get("/promised"));
        byte[] bytes = concat(
                frame(Frames.PUSH_PROMISE, 0, 1, concat(int32(2), Arrays.copyOf(block, 3))),
                frame(CONTINUATION, END_HEADERS, 1, Arrays.copyOfRange(block, 3, block.length)));
        FrameEvent.PushPromise push = assertInstanceOf(FrameEvent.PushPromise.class, harness.one(bytes));
        assertEquals(2, push.promisedStreamId());
        assertEquals("/promised", push.block().path());
    }

    @Test
    void anHpackErrorInASplitBlockIsACompressionError() {
        Harness harness = Harness.server();
        byte[] bytes =
                concat(frame(HEADERS, 0, 1, bytes(0x82)), frame(CONTINUATION, END_HEADERS, 1, bytes(0xFF, 0x7F)));
        Harness.connectionError(harness.one(bytes), ErrorCode.COMPRESSION_ERROR);
    }

    @Test
    void aBlockAfterASplitBlockDecodesNormally() {
        Harness harness = Harness.server();
        byte[] first = harness.block(Frames.with(Frames.get("/1"), "x-one", "1"));
        byte[] bytes = concat(
                split(1, first, 5, 3, END_STREAM),
                harness.headers(3, END_STREAM, Frames.with(Frames.get("/3"), "x-one", "1")));
        List<FrameEvent> events = harness.feed(bytes);
        assertEquals(2, events.size());
        assertEquals("/3", ((FrameEvent.Headers) events.get(1)).block().path());
        assertEquals(
                "1",
                ((FrameEvent.Headers) events.get(1))
                        .block()
                        .fields()
                        .get("x-one")
                        .orElseThrow());
    }
}
