package dev.quarry.server.internal.h2;

import dev.quarry.core.Callback;
import dev.quarry.core.Invocable;
import dev.quarry.core.InvocationType;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.core.timer.Timeout;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.server.Http2Config;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The connection control frames of one HTTP/2 connection: our SETTINGS preface and the timeout on its
 * acknowledgement, the client's SETTINGS (applied to the HPACK encoder, the flusher and every stream's send window),
 * PING, PRIORITY and unknown frames; all under the control-frame rate limit and the bound on unanswered control
 * frames, as are the frames a flood can be made of without being answered: unsolicited SETTINGS and PING
 * acknowledgements and WINDOW_UPDATE frames that open almost nothing or name a closed stream.
 *
 * <p>Threading: frames on the producer; the preface on the thread that opens the connection, before production
 * starts; the acknowledgement timeout on the timer. The encoder and the stream windows are changed under the
 * connection's lock; {@code peerInitialWindow} is written by the producer under that lock and read by the producer.
 * O(1) per frame except SETTINGS_INITIAL_WINDOW_SIZE, O(streams).
 */
final class Http2ControlFrames {
    private static final int MAX_CONTROL_BACKLOG = 1024;
    /** A window increment below this is not worth a frame of its own (see {@link #onWindowUpdate}). */
    static final int MIN_USEFUL_WINDOW_UPDATE = 1024;

    private final Http2Config config;
    private final ReentrantLock lock;
    private final HashedWheelTimer timer;
    private final HpackEncoder encoder;
    private final FrameGenerator generator;
    private final Http2Flusher flusher;
    private final Http2StreamTable streams;
    private final Http2Closer closer;
    private final RateControl controlFrames;
    private int peerInitialWindow = Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
    private boolean settingsReceived;
    private boolean settingsAcknowledged;
    private Timeout settingsAckTimeout;

    Http2ControlFrames(
            Http2Config config,
            ReentrantLock lock,
            HashedWheelTimer timer,
            HpackEncoder encoder,
            FrameGenerator generator,
            Http2Flusher flusher,
            Http2StreamTable streams,
            Http2Closer closer) {
        this.config = config;
        this.lock = lock;
        this.timer = timer;
        this.encoder = encoder;
        this.generator = generator;
        this.flusher = flusher;
        this.streams = streams;
        this.closer = closer;
        this.controlFrames = new RateControl(config.maxControlFramesPerSecond());
    }

    /** @return the client's SETTINGS_INITIAL_WINDOW_SIZE: the send window of a new stream */
    int peerInitialWindow() {
        return peerInitialWindow;
    }

    /** Sends our SETTINGS (and the connection window increase) and starts waiting for their acknowledgement. */
    void sendPreface() {
        Http2Settings settings = new Http2Settings()
                .set(Http2Settings.MAX_CONCURRENT_STREAMS, config.maxConcurrentStreams())
                .set(Http2Settings.INITIAL_WINDOW_SIZE, config.initialStreamWindow())
                .set(Http2Settings.MAX_FRAME_SIZE, config.maxFrameSize())
                .set(Http2Settings.MAX_HEADER_LIST_SIZE, config.maxHeaderListSize())
                .set(Http2Settings.ENABLE_PUSH, 0);
        flusher.offer(new Http2Flusher.ControlEntry(out -> generator.settings(out, settings), Callback.NOOP));
        int increase = config.connectionWindow() - Http2Settings.DEFAULT_INITIAL_WINDOW_SIZE;
        if (increase > 0) {
            flusher.offer(
                    new Http2Flusher.ControlEntry(out -> generator.windowUpdate(out, 0, increase), Callback.NOOP));
        }
        flusher.iterate();
        settingsAckTimeout = timer.schedule(
                Invocable.task(InvocationType.NON_BLOCKING, this::onSettingsAckTimeout),
                config.settingsAckTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
    }

    private void onSettingsAckTimeout() {
        closer.goAway(ErrorCode.SETTINGS_TIMEOUT, "no SETTINGS acknowledgement within " + config.settingsAckTimeout());
    }

    /** Cancels the acknowledgement timeout (the connection closed). */
    void cancelTimers() {
        Timeout ack = settingsAckTimeout;
        if (ack != null) {
            ack.cancel();
        }
    }

    void onSettings(Http2Settings settings) {
        if (settingsReceived && !controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many SETTINGS frames");
        }
        settingsReceived = true;
        checkControlBacklog();
        // Queue the ACK before applying: a window opened by the new settings may release DATA at once, and the peer
        // expects the ACK first.
        flusher.offer(new Http2Flusher.ControlEntry(generator::settingsAck, Callback.NOOP));
        applySettings(settings);
        flusher.iterate();
    }

    /** The HTTP2-Settings of an {@code Upgrade: h2c} request: the client's first SETTINGS, acknowledged implicitly. */
    void onSettingsFromUpgrade(Http2Settings settings) {
        settingsReceived = true;
        applySettings(settings);
    }

    private void applySettings(Http2Settings settings) {
        settings.get(Http2Settings.HEADER_TABLE_SIZE).ifPresent(size -> {
            lock.lock();
            try {
                encoder.setMaxTableSize((int) Math.min(size, Integer.MAX_VALUE));
            } finally {
                lock.unlock();
            }
        });
        settings.get(Http2Settings.MAX_FRAME_SIZE).ifPresent(size -> flusher.setMaxFrameSize((int) size));
        settings.get(Http2Settings.INITIAL_WINDOW_SIZE).ifPresent(size -> {
            int delta = (int) size - peerInitialWindow;
            lock.lock();
            try {
                peerInitialWindow = (int) size;
                flusher.setPeerInitialStreamWindow(peerInitialWindow);
                for (Http2Stream stream : streams.values()) {
                    if (!stream.updateSendWindow(delta)) {
                        throw Http2Exception.connection(
                                ErrorCode.FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream window");
                    }
                }
            } finally {
                lock.unlock();
            }
            flusher.iterate();
        });
    }

    void onSettingsAck() {
        if (settingsAcknowledged) {
            // We send SETTINGS once: any further acknowledgement is unsolicited, and as cheap to flood as a PING.
            countControlFrame("SETTINGS acknowledgements");
            return;
        }
        settingsAcknowledged = true;
        Timeout timeout = settingsAckTimeout;
        if (timeout != null) {
            // Dropped, not only cancelled: the connection would otherwise keep the timeout and its task while idle.
            settingsAckTimeout = null;
            timeout.cancel();
        }
    }

    void onPing(long payload, boolean ack) {
        if (ack) {
            // The server sends no PING: every acknowledgement is unsolicited.
            countControlFrame("PING acknowledgements");
            return;
        }
        if (!controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many PING frames");
        }
        checkControlBacklog();
        flusher.offer(new Http2Flusher.ControlEntry(out -> generator.ping(out, payload, true), Callback.NOOP));
        flusher.iterate();
    }

    void onPriority() {
        if (!controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many PRIORITY frames");
        }
    }

    void onUnknownFrame() {
        if (!controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many unknown frames");
        }
    }

    /**
     * A WINDOW_UPDATE that opens less than {@link #MIN_USEFUL_WINDOW_UPDATE} bytes, or a stray one, costs the server
     * work and gives it nothing to send: it counts as a control frame. Clients credit consumed data in large steps
     * (half a window, typically), which never count.
     *
     * @param increment the window increment
     * @param stray whether it names a closed stream beyond what a client racing with stream ends sends (see the
     *     caller)
     */
    void onWindowUpdate(int increment, boolean stray) {
        if (stray || increment < MIN_USEFUL_WINDOW_UPDATE) {
            countControlFrame("small or stray WINDOW_UPDATE frames");
        }
    }

    private void countControlFrame(String what) {
        if (!controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many " + what);
        }
    }

    /** An empty DATA frame without END_STREAM carries nothing: it counts as a control frame (flood defence). */
    void onEmptyData() {
        if (!controlFrames.onEvent()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many empty DATA frames");
        }
    }

    /**
     * A peer that keeps sending frames we must answer (PING, SETTINGS) while never reading our answers would make
     * them pile up without bound, under any rate limit: past a backlog, it is treated as an attack.
     */
    private void checkControlBacklog() {
        if (flusher.controlBacklog() >= MAX_CONTROL_BACKLOG) {
            throw Http2Exception.connection(
                    ErrorCode.ENHANCE_YOUR_CALM,
                    MAX_CONTROL_BACKLOG + " control frames waiting to be written: the client does not read");
        }
    }

    @Override
    public String toString() {
        return "Http2ControlFrames{peerInitialWindow=" + peerInitialWindow + ", settingsReceived=" + settingsReceived
                + "}";
    }
}
