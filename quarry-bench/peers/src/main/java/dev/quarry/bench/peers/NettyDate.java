package dev.quarry.bench.peers;

import io.netty.handler.codec.DateFormatter;
import io.netty.util.AsciiString;
import java.util.Date;

/**
 * The value of the {@code Date} header, formatted once per second.
 *
 * <p>Thread-safe and lock-free: the second and its text are one immutable {@link Stamp} behind a volatile field, so
 * a reader never pairs a second with another second's text. Two threads that both see a stale stamp both format
 * the new one; either write wins and both are right. O(1), allocation-free except once per second.
 */
final class NettyDate {
    private static volatile Stamp current = Stamp.of(System.currentTimeMillis() / 1000);

    private NettyDate() {}

    /** @return the current date in the IMF-fixdate format of RFC 9110 */
    static AsciiString now() {
        long second = System.currentTimeMillis() / 1000;
        Stamp stamp = current;
        if (stamp.second != second) {
            stamp = Stamp.of(second);
            current = stamp;
        }
        return stamp.text;
    }

    private record Stamp(long second, AsciiString text) {
        static Stamp of(long second) {
            return new Stamp(second, AsciiString.cached(DateFormatter.format(new Date(second * 1000))));
        }
    }
}
