package dev.quarry.http.h2test;

import java.util.HashMap;
import java.util.Map;

/**
 * The flow-control credit the peer gave a {@link Http2TestClient} (RFC 9113 6.9): the connection's send window and
 * one window per stream, opened by the peer's SETTINGS_INITIAL_WINDOW_SIZE and WINDOW_UPDATE frames and consumed by the
 * DATA the client sends through its flow-controlled sends. A stream's window starts at the initial window in force
 * when the stream is first mentioned (a window update for it, or a send).
 *
 * <p>Thread-safety: none; the client guards it with its event lock. O(1) per operation.
 */
final class SendWindows {
    private static final int DEFAULT_WINDOW = 65_535;

    private final Map<Integer, Long> streams = new HashMap<>();
    private long connection = DEFAULT_WINDOW;
    private long initial = DEFAULT_WINDOW;

    /** The peer's SETTINGS_INITIAL_WINDOW_SIZE changed: every stream window moves by the difference (6.9.2). */
    void onInitialWindow(long size) {
        long delta = size - initial;
        initial = size;
        streams.replaceAll((id, window) -> window + delta);
    }

    /** A WINDOW_UPDATE from the peer. */
    void onWindowUpdate(int streamId, int increment) {
        if (streamId == 0) {
            connection += increment;
        } else {
            streams.merge(streamId, initial + increment, (window, ignored) -> window + increment);
        }
    }

    /** @return how many octets of DATA {@code streamId} may send now */
    long available(int streamId) {
        return Math.min(connection, stream(streamId));
    }

    /** Takes {@code octets} of credit from the connection and the stream. */
    void consume(int streamId, int octets) {
        connection -= octets;
        streams.put(streamId, stream(streamId) - octets);
    }

    /** @return the stream's send window */
    long stream(int streamId) {
        return streams.getOrDefault(streamId, initial);
    }

    /** @return the connection's send window */
    long connection() {
        return connection;
    }

    @Override
    public String toString() {
        return "SendWindows{connection=" + connection + ", initial=" + initial + ", streams=" + streams + "}";
    }
}
