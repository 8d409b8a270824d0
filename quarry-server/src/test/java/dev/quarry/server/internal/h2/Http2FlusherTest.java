package dev.quarry.server.internal.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.io.EndPoint;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link Http2Flusher} against an endpoint whose writes complete at once, on the writing thread. */
@ExtendWith(LeakTrackingPoolExtension.class)
class Http2FlusherTest {

    /** An endpoint that writes everything immediately and completes the callback before write() returns. */
    private static EndPoint synchronousEndPoint() {
        return (EndPoint) Proxy.newProxyInstance(
                EndPoint.class.getClassLoader(), new Class<?>[] {EndPoint.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "write" -> {
                            for (ByteBuffer buffer : (ByteBuffer[]) args[1]) {
                                buffer.position(buffer.limit());
                            }
                            ((Callback) args[0]).succeeded();
                            return null;
                        }
                        case "isOpen" -> {
                            return true;
                        }
                        case "toString" -> {
                            return "SynchronousEndPoint";
                        }
                        default -> {
                            return defaultValue(method.getReturnType());
                        }
                    }
                });
    }

    /** An endpoint like {@link #synchronousEndPoint()} that keeps every byte written. */
    private static EndPoint recordingEndPoint(ByteArrayOutputStream written) {
        return (EndPoint) Proxy.newProxyInstance(
                EndPoint.class.getClassLoader(), new Class<?>[] {EndPoint.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "write" -> {
                            for (ByteBuffer buffer : (ByteBuffer[]) args[1]) {
                                while (buffer.hasRemaining()) {
                                    written.write(buffer.get());
                                }
                            }
                            ((Callback) args[0]).succeeded();
                            return null;
                        }
                        case "isOpen" -> {
                            return true;
                        }
                        case "toString" -> {
                            return "RecordingEndPoint";
                        }
                        default -> {
                            return defaultValue(method.getReturnType());
                        }
                    }
                });
    }

    /**
     * @return a flusher over {@link #recordingEndPoint}, whose timer never starts (nothing is held back) and whose
     *     callbacks complete in place
     */
    private static Http2Flusher recordingFlusher(
            ByteBufferPool pool, ByteArrayOutputStream written, Http2Flusher.Windows windows, int bufferSize) {
        return new Http2Flusher(
                new ReentrantLock(),
                new HashedWheelTimer(),
                Duration.ofMillis(200),
                recordingEndPoint(written),
                pool,
                new FrameGenerator(new HpackEncoder()),
                windows,
                bufferSize,
                Runnable::run,
                cause -> {});
    }

    /** @return the type of each frame in {@code bytes}, in order */
    private static List<Integer> frameTypes(byte[] bytes) {
        List<Integer> types = new ArrayList<>();
        for (int at = 0; at + 9 <= bytes.length; ) {
            int length = ((bytes[at] & 0xFF) << 16) | ((bytes[at + 1] & 0xFF) << 8) | (bytes[at + 2] & 0xFF);
            types.add(bytes[at + 3] & 0xFF);
            at += 9 + length;
        }
        return types;
    }

    /**
     * A demand on one thread decided to send 100 Continue while the handler's thread sent the final head: the 100 is
     * queued behind the head. It must not go out after it (RFC 9110 15.2): a second head would be malformed.
     */
    @Test
    void aOneHundredQueuedAfterTheFinalHeadIsDropped(ByteBufferPool pool) {
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        Http2Flusher flusher = recordingFlusher(pool, written, new NoWindows(), 16_384);
        Http2Stream stream = new Http2Stream(1, null, 65_535);
        List<String> outcomes = new CopyOnWriteArrayList<>();
        flusher.offer(new Http2Flusher.ResponseEntry(stream, 200, new HttpFields(), null, false, null, Callback.NOOP));
        flusher.offer(new Http2Flusher.ResponseEntry(
                stream,
                100,
                new HttpFields(0),
                null,
                false,
                null,
                Callback.from(
                        InvocationType.NON_BLOCKING,
                        () -> outcomes.add("100 done"),
                        x -> outcomes.add("100 failed: " + x))));
        flusher.iterate();

        assertEquals(List.of(1), frameTypes(written.toByteArray()), "one HEADERS frame, the final head's");
        assertEquals(List.of("100 done"), outcomes, "the dropped 100's callback still completes");
        flusher.release();
    }

    /**
     * A large file mapping queued first must not fill every buffer until it is sent: a small response queued behind it
     * (a page's script behind its image) goes out in the first write, between the file's frames.
     */
    @Test
    void aSmallResponseQueuedBehindALargeFileMappingIsNotHeldUntilTheFileIsSent(ByteBufferPool pool) {
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        Http2Flusher flusher = recordingFlusher(pool, written, new WideWindows(), 32_768);
        Http2Stream file = new Http2Stream(1, null, 1 << 30);
        Http2Stream script = new Http2Stream(3, null, 1 << 30);
        ByteBuffer mapping = ByteBuffer.allocate(1 << 20);
        flusher.offer(
                new Http2Flusher.ResponseEntry(file, 200, new HttpFields(), mapping, true, true, null, Callback.NOOP));
        flusher.offer(new Http2Flusher.ResponseEntry(
                script, 200, new HttpFields(), ByteBuffer.wrap(new byte[100]), true, null, Callback.NOOP));
        flusher.iterate();

        List<String> frames = frames(written.toByteArray());
        int scriptEnd = frames.indexOf("DATA 3 END_STREAM");
        int fileEnd = frames.indexOf("DATA 1 END_STREAM");
        assertTrue(scriptEnd >= 0 && fileEnd >= 0, frames::toString);
        assertTrue(scriptEnd <= 4, "the small response went in the first write: " + frames.subList(0, 6));
        assertEquals(0, mapping.remaining(), "the file was sent whole");
        flusher.release();
    }

    /** @return each frame in {@code bytes}: "TYPE stream [END_STREAM]", DATA and HEADERS named */
    private static List<String> frames(byte[] bytes) {
        List<String> frames = new ArrayList<>();
        for (int at = 0; at + 9 <= bytes.length; ) {
            int length = ((bytes[at] & 0xFF) << 16) | ((bytes[at + 1] & 0xFF) << 8) | (bytes[at + 2] & 0xFF);
            int type = bytes[at + 3] & 0xFF;
            boolean end = (bytes[at + 4] & 0x1) != 0;
            int stream = ((bytes[at + 5] & 0x7F) << 24)
                    | ((bytes[at + 6] & 0xFF) << 16)
                    | ((bytes[at + 7] & 0xFF) << 8)
                    | (bytes[at + 8] & 0xFF);
            frames.add((type == 0 ? "DATA" : type == 1 ? "HEADERS" : "TYPE" + type) + " " + stream
                    + (end ? " END_STREAM" : ""));
            at += 9 + length;
        }
        return frames;
    }

    private static final class WideWindows implements Http2Flusher.Windows {
        @Override
        public int connectionSendWindow() {
            return 1 << 30;
        }

        @Override
        public void consumeConnectionSendWindow(int bytes) {}
    }

    private static final class NoWindows implements Http2Flusher.Windows {
        @Override
        public int connectionSendWindow() {
            return 0;
        }

        @Override
        public void consumeConnectionSendWindow(int bytes) {}
    }

    /**
     * The GOAWAY's callback closes the connection, which terminates the flusher, while the flusher completes the
     * entries of the same write: the others were written and must succeed, not fail (and nothing may throw).
     */
    @Test
    void aCallbackThatTerminatesTheFlusherDoesNotFailWhatWasWritten(ByteBufferPool pool) {
        FrameGenerator generator = new FrameGenerator(new HpackEncoder());
        Http2Flusher[] flusher = new Http2Flusher[1];
        flusher[0] = new Http2Flusher(
                new ReentrantLock(),
                new HashedWheelTimer(), // never started: nothing is held back here
                Duration.ofMillis(200),
                synchronousEndPoint(),
                pool,
                generator,
                new NoWindows(),
                16_384,
                Runnable::run,
                cause -> {});
        List<String> outcomes = new CopyOnWriteArrayList<>();
        flusher[0].offer(new Http2Flusher.ControlEntry(
                out -> generator.ping(out, 1, true),
                Callback.from(
                        InvocationType.NON_BLOCKING,
                        () -> {
                            outcomes.add("first succeeded");
                            flusher[0].terminate(new EOFException("closed by the first callback"));
                        },
                        x -> outcomes.add("first failed: " + x))));
        flusher[0].offer(new Http2Flusher.ControlEntry(
                out -> generator.ping(out, 2, true),
                Callback.from(
                        InvocationType.NON_BLOCKING,
                        () -> outcomes.add("second succeeded"),
                        x -> outcomes.add("second failed: " + x))));
        flusher[0].iterate();
        assertEquals(List.of("first succeeded", "second succeeded"), outcomes);
        flusher[0].release();
    }

    /** What the JVM throws for a read of a truncated file's pages, as compiled code delivers it: after the copy. */
    private static final String ASYNC_FAULT =
            "a fault occurred in a recent unsafe memory access operation in compiled Java code";
    /** The message of the same fault on JDK 25, synchronous or not. */
    private static final String FAULT = "a fault occurred in an unsafe memory access operation";

    /**
     * An entry whose generation throws the JVM's mapping fault after it framed some bytes: where an asynchronous fault
     * of a copy surfaces once the copying code is compiled (at a safepoint poll past the copy's guard).
     */
    private static final class FaultSurfacingEntry extends Http2Flusher.Entry {
        FaultSurfacingEntry(Http2Stream stream, Callback callback) {
            super(stream, callback);
        }

        @Override
        Http2Flusher.Generated generate(Http2Flusher flusher, ByteBuffer out) {
            flusher.generator().dataHeader(out, stream.id(), 0, false);
            throw new InternalError(ASYNC_FAULT);
        }
    }

    private static Callback recording(List<String> outcomes, String name) {
        return Callback.from(
                InvocationType.NON_BLOCKING,
                () -> outcomes.add(name + " succeeded"),
                x -> outcomes.add(name + " failed" + (hasInternalError(x) ? " (fault)" : "")));
    }

    private static boolean hasInternalError(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InternalError) {
                return true;
            }
        }
        return false;
    }

    /**
     * A mapping fault that surfaces outside the copy's guard, in the middle of a round: nothing of that round is written
     * (a frame may hold bytes the copy never read); every stream's write fails, a file mapping's with the fault (so
     * that its file is opened again); the connection is told once, and the GOAWAY it queues still goes out.
     */
    @Test
    void aMappingFaultOutsideTheCopyFailsTheConnectionAndLetsItsGoAwayOut(ByteBufferPool pool) {
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        FrameGenerator generator = new FrameGenerator(new HpackEncoder());
        List<String> outcomes = new CopyOnWriteArrayList<>();
        List<Throwable> faults = new CopyOnWriteArrayList<>();
        Http2Flusher[] flusher = new Http2Flusher[1];
        flusher[0] = new Http2Flusher(
                new ReentrantLock(),
                new HashedWheelTimer(), // never started: nothing is held back here
                Duration.ofMillis(200),
                recordingEndPoint(written),
                pool,
                generator,
                new WideWindows(),
                32_768,
                Runnable::run,
                cause -> {
                    // As the connection does: GOAWAY, and iterate.
                    faults.add(cause);
                    flusher[0].offer(new Http2Flusher.ControlEntry(
                            out -> generator.goAway(out, 5, dev.quarry.http.h2.ErrorCode.INTERNAL_ERROR, "fault"),
                            recording(outcomes, "goaway")));
                    flusher[0].iterate();
                });
        flusher[0].offer(new Http2Flusher.ResponseEntry(
                new Http2Stream(1, null, 1 << 30),
                200,
                new HttpFields(),
                ByteBuffer.allocate(100_000),
                true,
                true,
                null,
                recording(outcomes, "file")));
        flusher[0].offer(new Http2Flusher.ResponseEntry(
                new Http2Stream(3, null, 1 << 30),
                200,
                new HttpFields(),
                ByteBuffer.wrap(new byte[100]),
                true,
                null,
                recording(outcomes, "small")));
        flusher[0].offer(new FaultSurfacingEntry(new Http2Stream(5, null, 1 << 30), recording(outcomes, "faulting")));
        flusher[0].iterate();

        assertEquals(List.of("TYPE7 0"), frames(written.toByteArray()), "only the GOAWAY is written");
        assertEquals(1, faults.size(), "the connection is told once");
        assertTrue(hasInternalError(faults.get(0)), faults.get(0).toString());
        assertTrue(outcomes.contains("file failed (fault)"), outcomes::toString);
        assertTrue(outcomes.contains("small failed"), outcomes::toString);
        assertTrue(
                outcomes.contains("faulting failed (fault)") || outcomes.contains("faulting failed"),
                outcomes::toString);
        assertTrue(outcomes.contains("goaway succeeded"), outcomes::toString);
        assertEquals(4, outcomes.size(), outcomes::toString);

        // A stream's write queued after the fault fails; a control frame still goes out.
        flusher[0].offer(new Http2Flusher.ResponseEntry(
                new Http2Stream(7, null, 1 << 30),
                200,
                new HttpFields(),
                null,
                true,
                null,
                recording(outcomes, "late")));
        flusher[0].iterate();
        assertTrue(outcomes.contains("late failed (fault)"), outcomes::toString);
        assertEquals(List.of("TYPE7 0"), frames(written.toByteArray()));
        flusher[0].release();
    }

    /**
     * A mapping fault that surfaces once the endpoint's write was called (at its return, or inside it): the endpoint
     * may hold that write, so nothing more can be written in order; the connection closes at once and every write
     * queued fails.
     */
    @Test
    void aMappingFaultSurfacingInTheWriteClosesTheEndPoint(ByteBufferPool pool) {
        List<Throwable> closes = new CopyOnWriteArrayList<>();
        EndPoint endPoint = closeRecordingEndPoint(closes, () -> {
            throw new InternalError(FAULT);
        });
        List<String> outcomes = new CopyOnWriteArrayList<>();
        List<Throwable> faults = new CopyOnWriteArrayList<>();
        Http2Flusher flusher = new Http2Flusher(
                new ReentrantLock(),
                new HashedWheelTimer(),
                Duration.ofMillis(200),
                endPoint,
                pool,
                new FrameGenerator(new HpackEncoder()),
                new WideWindows(),
                16_384,
                Runnable::run,
                faults::add);
        flusher.offer(new Http2Flusher.ResponseEntry(
                new Http2Stream(1, null, 1 << 30),
                200,
                new HttpFields(),
                ByteBuffer.allocate(10_000),
                true,
                true,
                null,
                recording(outcomes, "file")));
        flusher.iterate();

        assertEquals(1, closes.size(), "the endpoint is closed");
        assertTrue(hasInternalError(closes.get(0)), closes.get(0).toString());
        assertEquals(List.of("file failed (fault)"), outcomes);
        assertTrue(flusher.isDone(), flusher.toString());
        flusher.release();
    }

    /**
     * @return an endpoint that records its closes (open until the first), and whose write runs {@code onWrite} and then
     *     succeeds
     */
    private static EndPoint closeRecordingEndPoint(List<Throwable> closes, Runnable onWrite) {
        return (EndPoint) Proxy.newProxyInstance(
                EndPoint.class.getClassLoader(), new Class<?>[] {EndPoint.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "write" -> {
                            onWrite.run();
                            ((Callback) args[0]).succeeded();
                            return null;
                        }
                        case "close" -> {
                            closes.add(args == null ? new EOFException("closed") : (Throwable) args[0]);
                            return null;
                        }
                        case "isOpen" -> {
                            return closes.isEmpty();
                        }
                        case "toString" -> {
                            return "CloseRecordingEndPoint";
                        }
                        default -> {
                            return defaultValue(method.getReturnType());
                        }
                    }
                });
    }

    /**
     * A bug of ours thrown while frames are generated stops the flusher: the connection, which can no longer write,
     * closes at once rather than go on reading, its streams' writes failing, until its idle timeout.
     */
    @Test
    void anErrorWhileGeneratingClosesTheEndPoint(ByteBufferPool pool) {
        List<Throwable> closes = new CopyOnWriteArrayList<>();
        Http2Flusher flusher = new Http2Flusher(
                new ReentrantLock(),
                new HashedWheelTimer(),
                Duration.ofMillis(200),
                closeRecordingEndPoint(closes, () -> {}),
                pool,
                new FrameGenerator(new HpackEncoder()),
                new WideWindows(),
                16_384,
                Runnable::run,
                cause -> {});
        List<String> outcomes = new CopyOnWriteArrayList<>();
        flusher.offer(new Http2Flusher.Entry(new Http2Stream(1, null, 1 << 30), recording(outcomes, "buggy")) {
            @Override
            Http2Flusher.Generated generate(Http2Flusher ignored, ByteBuffer out) {
                throw new IllegalStateException("a bug");
            }
        });
        flusher.iterate();

        assertEquals(List.of("buggy failed"), outcomes);
        assertFalse(closes.isEmpty(), "the endpoint is closed");
        assertInstanceOf(IllegalStateException.class, closes.get(0));
        assertTrue(flusher.isDone(), flusher.toString());
        flusher.release();
    }

    /** @return what a proxied endpoint answers for a method the test does not care about */
    private static Object defaultValue(Class<?> type) {
        return type == long.class ? 0L : type == boolean.class ? false : null;
    }
}
