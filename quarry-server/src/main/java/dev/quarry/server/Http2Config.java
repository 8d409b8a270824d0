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
 * @param connectionWindow the connection's receive window, opened with a WINDOW_UPDATE after the preface and reopened
 *     as handlers consume request content (the bound on buffering per connection, whatever its streams' windows add
 *     up to)
 * @param maxFrameSize our SETTINGS_MAX_FRAME_SIZE
 * @param maxHeaderListSize our SETTINGS_MAX_HEADER_LIST_SIZE (decoded size; beyond, 431)
 * @param maxHeaderBlockSize encoded size of one header block across CONTINUATION frames (CONTINUATION floods)
 * @param maxContinuationFrames CONTINUATION frames in one header block (CONTINUATION floods)
 * @param maxResetsPerSecond streams a client may reset per second before the connection is closed with
 *     ENHANCE_YOUR_CALM (rapid reset, CVE-2023-44487)
 * @param maxControlFramesPerSecond SETTINGS, PING, PRIORITY, empty DATA and unknown frames, unsolicited SETTINGS and
 *     PING acknowledgements, and WINDOW_UPDATEs under 1 KiB or on closed streams (beyond one per stream opened) a
 *     client may send per second before the connection is closed with ENHANCE_YOUR_CALM (floods); 0 for no limit
 * @param settingsAckTimeout how long the client has to acknowledge our SETTINGS (SETTINGS_TIMEOUT)
 * @param streamIdleTimeout how long a stream may make no progress (a response stalled because the client never opens
 *     its window) before it is reset
 * @param maxHeldContent the server-wide budget, in bytes, of request content that HTTP/2 connections have received
 *     and handlers have not consumed yet, counted as the memory it holds (a copied payload at its size, an input
 *     buffer shared by payloads at its capacity): once it is spent, new streams that announce a body are refused
 *     with REFUSED_STREAM, and a DATA frame that would overrun it resets its stream with ENHANCE_YOUR_CALM
 * @param maxOpenFiles files the responses of one connection may keep open at once (file downloads served by
 *     {@code StaticFiles}): a stream that needs one more waits, holding no file, until another response closes its
 *     file, so that a client that stops reading cannot pin a file per stream
 * @param smallFrameWait how long a response's DATA fragment under 1 KiB, held back while the client's credit for our
 *     data in flight is due (silly-window avoidance), waits for that credit before it is sent anyway: a client may
 *     credit a window only once it is completely used, and would otherwise never be sent the rest
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
        Duration streamIdleTimeout,
        long maxHeldContent,
        int maxOpenFiles,
        Duration smallFrameWait) {

    /**
     * The defaults: 128 streams, 256 KiB per stream, 1 MiB per connection, 16 KiB frames, 16 KiB of headers, and a
     * budget for unread request content of {@linkplain #defaultMaxHeldContent() a quarter of the maximum heap}, 16 files
     * open per connection.
     */
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
            Duration.ofSeconds(30),
            defaultMaxHeldContent(),
            16,
            Duration.ofMillis(200));

    /**
     * The default budget for unread HTTP/2 request content: a quarter of the maximum heap, which is also the JVM's
     * default limit on direct memory (shared input buffers are direct, copies are on the heap), at least 4 MiB and at
     * most 1 GiB. With a 64 MiB heap, 16 MiB: the process refuses new uploads long before it runs out of memory.
     *
     * @return the budget in bytes
     */
    public static long defaultMaxHeldContent() {
        long max = Runtime.getRuntime().maxMemory();
        long quarter = max == Long.MAX_VALUE ? 1L << 30 : max / 4;
        return Math.clamp(quarter, 4L << 20, 1L << 30);
    }

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
        if (maxHeldContent < 1) {
            throw new IllegalArgumentException("maxHeldContent must be >= 1, was " + maxHeldContent);
        }
        if (maxOpenFiles < 1) {
            throw new IllegalArgumentException("maxOpenFiles must be >= 1, was " + maxOpenFiles);
        }
        Objects.requireNonNull(smallFrameWait, "smallFrameWait");
        if (smallFrameWait.isNegative()) {
            throw new IllegalArgumentException("smallFrameWait must be >= 0, was " + smallFrameWait);
        }
    }

    /** @return a builder starting from the defaults */
    public static Builder builder() {
        return DEFAULT.toBuilder();
    }

    /** @return a builder starting from this configuration */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.maxConcurrentStreams = maxConcurrentStreams;
        builder.initialStreamWindow = initialStreamWindow;
        builder.connectionWindow = connectionWindow;
        builder.maxFrameSize = maxFrameSize;
        builder.maxHeaderListSize = maxHeaderListSize;
        builder.maxHeaderBlockSize = maxHeaderBlockSize;
        builder.maxContinuationFrames = maxContinuationFrames;
        builder.maxResetsPerSecond = maxResetsPerSecond;
        builder.maxControlFramesPerSecond = maxControlFramesPerSecond;
        builder.settingsAckTimeout = settingsAckTimeout;
        builder.streamIdleTimeout = streamIdleTimeout;
        builder.maxHeldContent = maxHeldContent;
        builder.maxOpenFiles = maxOpenFiles;
        builder.smallFrameWait = smallFrameWait;
        return builder;
    }

    /**
     * @param max streams per connection
     * @return a copy with it
     */
    public Http2Config withMaxConcurrentStreams(int max) {
        return toBuilder().maxConcurrentStreams(max).build();
    }

    /**
     * @param timeout stream idle timeout
     * @return a copy with it
     */
    public Http2Config withStreamIdleTimeout(Duration timeout) {
        return toBuilder().streamIdleTimeout(timeout).build();
    }

    /**
     * @param bytes the server-wide budget of unread request content
     * @return a copy with it
     */
    public Http2Config withMaxHeldContent(long bytes) {
        return toBuilder().maxHeldContent(bytes).build();
    }

    /**
     * @param window initial stream window
     * @return a copy with it
     */
    public Http2Config withInitialStreamWindow(int window) {
        return toBuilder().initialStreamWindow(window).build();
    }

    /** Builds an {@link Http2Config}; every setter documents the record component of the same name. */
    public static final class Builder {
        private int maxConcurrentStreams;
        private int initialStreamWindow;
        private int connectionWindow;
        private int maxFrameSize;
        private int maxHeaderListSize;
        private int maxHeaderBlockSize;
        private int maxContinuationFrames;
        private int maxResetsPerSecond;
        private int maxControlFramesPerSecond;
        private Duration settingsAckTimeout;
        private Duration streamIdleTimeout;
        private long maxHeldContent;
        private int maxOpenFiles;
        private Duration smallFrameWait;

        private Builder() {}

        /** @param value streams a client may have open @return this */
        public Builder maxConcurrentStreams(int value) {
            maxConcurrentStreams = value;
            return this;
        }

        /** @param value our SETTINGS_INITIAL_WINDOW_SIZE @return this */
        public Builder initialStreamWindow(int value) {
            initialStreamWindow = value;
            return this;
        }

        /** @param value the connection receive window @return this */
        public Builder connectionWindow(int value) {
            connectionWindow = value;
            return this;
        }

        /** @param value our SETTINGS_MAX_FRAME_SIZE @return this */
        public Builder maxFrameSize(int value) {
            maxFrameSize = value;
            return this;
        }

        /** @param value our SETTINGS_MAX_HEADER_LIST_SIZE @return this */
        public Builder maxHeaderListSize(int value) {
            maxHeaderListSize = value;
            return this;
        }

        /** @param value encoded bytes of one header block @return this */
        public Builder maxHeaderBlockSize(int value) {
            maxHeaderBlockSize = value;
            return this;
        }

        /** @param value CONTINUATION frames of one header block @return this */
        public Builder maxContinuationFrames(int value) {
            maxContinuationFrames = value;
            return this;
        }

        /** @param value client resets per second before ENHANCE_YOUR_CALM @return this */
        public Builder maxResetsPerSecond(int value) {
            maxResetsPerSecond = value;
            return this;
        }

        /** @param value cheap control frames per second before ENHANCE_YOUR_CALM @return this */
        public Builder maxControlFramesPerSecond(int value) {
            maxControlFramesPerSecond = value;
            return this;
        }

        /** @param value how long the client has to acknowledge our SETTINGS @return this */
        public Builder settingsAckTimeout(Duration value) {
            settingsAckTimeout = value;
            return this;
        }

        /** @param value how long a stream may wait on the peer without progress @return this */
        public Builder streamIdleTimeout(Duration value) {
            streamIdleTimeout = value;
            return this;
        }

        /** @param value bytes of unread request content all connections may hold @return this */
        public Builder maxHeldContent(long value) {
            maxHeldContent = value;
            return this;
        }

        /** @param value files one connection's responses may keep open at once @return this */
        public Builder maxOpenFiles(int value) {
            maxOpenFiles = value;
            return this;
        }

        /** @param value how long a DATA fragment under 1 KiB waits for due credit @return this */
        public Builder smallFrameWait(Duration value) {
            smallFrameWait = value;
            return this;
        }

        /** @return the configuration, validated */
        public Http2Config build() {
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
                    streamIdleTimeout,
                    maxHeldContent,
                    maxOpenFiles,
                    smallFrameWait);
        }
    }
}
