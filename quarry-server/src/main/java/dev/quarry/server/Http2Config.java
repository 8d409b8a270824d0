package dev.quarry.server;

import java.time.Duration;
import java.util.Objects;

/**
 * HTTP/2 settings and abuse limits of a server; immutable. Every limit answers an attack that has been used against
 * HTTP/2 servers, and each can be changed.
 *
 * @param maxConcurrentStreams SETTINGS_MAX_CONCURRENT_STREAMS: streams a client may have open; more are refused
 * @param initialStreamWindow our SETTINGS_INITIAL_WINDOW_SIZE: how much request content one stream may send before the
 *     handler reads it (the bound on buffering per stream)
 * @param connectionWindow the connection's receive window, opened with a WINDOW_UPDATE after the preface
 * @param maxFrameSize our SETTINGS_MAX_FRAME_SIZE
 * @param maxHeaderListSize our SETTINGS_MAX_HEADER_LIST_SIZE (decoded size; beyond, 431)
 * @param maxHeaderBlockSize encoded size of one header block across CONTINUATION frames (CONTINUATION floods)
 * @param maxContinuationFrames CONTINUATION frames in one header block (CONTINUATION floods)
 * @param maxResetsPerSecond streams a client may reset per second before the connection is closed with
 *     ENHANCE_YOUR_CALM (rapid reset, CVE-2023-44487)
 * @param maxControlFramesPerSecond SETTINGS, PING, PRIORITY, empty DATA and unknown frames a client may send per
 *     second before the connection is closed with ENHANCE_YOUR_CALM (floods)
 * @param settingsAckTimeout how long the client has to acknowledge our SETTINGS (SETTINGS_TIMEOUT)
 * @param streamIdleTimeout how long a stream may make no progress (a response stalled because the client never opens
 *     its window) before it is reset
 */
public record Http2Config(
        int maxConcurrentStreams,
        int initialStreamWindow,
        int connectionWindow,
        int maxFrameSize,
        int maxHeaderListSize,
        int maxHeaderBlockSize,
        int maxContinuationFrames,
        int maxResetsPerSecond,
        int maxControlFramesPerSecond,
        Duration settingsAckTimeout,
        Duration streamIdleTimeout) {

    /** The defaults: 128 streams, 256 KiB per stream, 1 MiB per connection, 16 KiB frames, 16 KiB of headers. */
    public static final Http2Config DEFAULT = new Http2Config(
            128,
            256 * 1024,
            1024 * 1024,
            16_384,
            16 * 1024,
            64 * 1024,
            32,
            200,
            512,
            Duration.ofSeconds(10),
            Duration.ofSeconds(30));

    /** Validates. */
    public Http2Config {
        if (maxConcurrentStreams < 1) {
            throw new IllegalArgumentException("maxConcurrentStreams must be >= 1, was " + maxConcurrentStreams);
        }
        if (initialStreamWindow < 1) {
            throw new IllegalArgumentException("initialStreamWindow must be >= 1, was " + initialStreamWindow);
        }
        if (connectionWindow < 65_535) {
            throw new IllegalArgumentException("connectionWindow must be >= 65535, was " + connectionWindow);
        }
        if (maxFrameSize < 16_384 || maxFrameSize > 16_777_215) {
            throw new IllegalArgumentException("maxFrameSize must be 16384..16777215, was " + maxFrameSize);
        }
        Objects.requireNonNull(settingsAckTimeout, "settingsAckTimeout");
        Objects.requireNonNull(streamIdleTimeout, "streamIdleTimeout");
    }

    /**
     * @param max streams per connection
     * @return a copy with it
     */
    public Http2Config withMaxConcurrentStreams(int max) {
        return new Http2Config(
                max,
                initialStreamWindow,
                connectionWindow,
                maxFrameSize,
                maxHeaderListSize,
                maxHeaderBlockSize,
                maxContinuationFrames,
                maxResetsPerSecond,
                maxControlFramesPerSecond,
                settingsAckTimeout,
                streamIdleTimeout);
    }

    /**
     * @param timeout stream idle timeout
     * @return a copy with it
     */
    public Http2Config withStreamIdleTimeout(Duration timeout) {
        return new Http2Config(
                maxConcurrentStreams,
                initialStreamWindow,
                connectionWindow,
                maxFrameSize,
                maxHeaderListSize,
                maxHeaderBlockSize,
                maxContinuationFrames,
                maxResetsPerSecond,
                maxControlFramesPerSecond,
                settingsAckTimeout,
                timeout);
    }

    /**
     * @param window initial stream window
     * @return a copy with it
     */
    public Http2Config withInitialStreamWindow(int window) {
        return new Http2Config(
                maxConcurrentStreams,
                window,
                connectionWindow,
                maxFrameSize,
                maxHeaderListSize,
                maxHeaderBlockSize,
                maxContinuationFrames,
                maxResetsPerSecond,
                maxControlFramesPerSecond,
                settingsAckTimeout,
                streamIdleTimeout);
    }
}
