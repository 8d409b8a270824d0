package dev.quarry.http.h2test;

import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameListener;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A {@link FrameListener} that turns every callback into a {@link FrameEvent} (copying payloads) and hands it to a
 * consumer, by default its own list. Called on the parsing thread; the list is not thread-safe.
 */
public class FrameRecorder implements FrameListener {
    private final List<FrameEvent> events = new ArrayList<>();
    private final Consumer<FrameEvent> sink;

    /** Records into {@link #events()}. */
    public FrameRecorder() {
        this.sink = events::add;
    }

    /** @param sink receives each event instead of the list */
    public FrameRecorder(Consumer<FrameEvent> sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** @return the events recorded so far (when no consumer was given) */
    public List<FrameEvent> events() {
        return events;
    }

    /** @return the last event recorded, or null */
    public FrameEvent last() {
        return events.isEmpty() ? null : events.get(events.size() - 1);
    }

    /** Forgets the events recorded so far. */
    public void clear() {
        events.clear();
    }

    @Override
    public void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {
        byte[] copy = new byte[data.remaining()];
        data.get(data.position(), copy);
        sink.accept(new FrameEvent.Data(streamId, copy, endStream, flowControlledLength));
    }

    @Override
    public void onHeaders(int streamId, HeaderBlock block, boolean endStream) {
        sink.accept(new FrameEvent.Headers(streamId, block, endStream));
    }

    @Override
    public void onPriority(int streamId, int dependency, boolean exclusive, int weight) {
        sink.accept(new FrameEvent.Priority(streamId, dependency, exclusive, weight));
    }

    @Override
    public void onRstStream(int streamId, ErrorCode error) {
        sink.accept(new FrameEvent.RstStream(streamId, error));
    }

    @Override
    public void onSettings(Http2Settings settings) {
        sink.accept(new FrameEvent.Settings(settings));
    }

    @Override
    public void onSettingsAck() {
        sink.accept(new FrameEvent.SettingsAck());
    }

    @Override
    public void onPing(long payload, boolean ack) {
        sink.accept(new FrameEvent.Ping(payload, ack));
    }

    @Override
    public void onGoAway(int lastStreamId, ErrorCode error, ByteBuffer debugData) {
        byte[] copy = new byte[debugData.remaining()];
        debugData.get(debugData.position(), copy);
        sink.accept(new FrameEvent.GoAway(lastStreamId, error, new String(copy, StandardCharsets.UTF_8)));
    }

    @Override
    public void onWindowUpdate(int streamId, int increment) {
        sink.accept(new FrameEvent.WindowUpdate(streamId, increment));
    }

    @Override
    public void onPushPromise(int streamId, int promisedStreamId, HeaderBlock block) {
        sink.accept(new FrameEvent.PushPromise(streamId, promisedStreamId, block));
    }

    @Override
    public void onUnknownFrame(int type, int streamId, int length) {
        sink.accept(new FrameEvent.Unknown(type, streamId, length));
    }

    @Override
    public void onConnectionError(Http2Exception error) {
        sink.accept(new FrameEvent.ConnectionError(error));
    }

    @Override
    public void onStreamError(Http2Exception error) {
        sink.accept(new FrameEvent.StreamError(error));
    }
}
