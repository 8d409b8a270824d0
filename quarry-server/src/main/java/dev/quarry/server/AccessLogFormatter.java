package dev.quarry.server;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Formats {@link AccessLogEntry entries} as lines of an {@link AccessLog.Format}. The output is pure ASCII whatever
 * the request carried: every character outside printable ASCII is escaped, so a line never breaks in two, never forges
 * another line and needs no charset to be written.
 *
 * <p>Thread-safety: confined to the access log's writer thread (it caches the formatted second of the last entry).
 */
final class AccessLogFormatter {
    private static final DateTimeFormatter NCSA_TIME = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.US);
    private static final DateTimeFormatter ISO_SECOND =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final AccessLog.Format format;
    private final DateTimeFormatter ncsaTime;
    private long cachedSecond = Long.MIN_VALUE;
    private String cachedTime = "";

    AccessLogFormatter(AccessLog.Format format, ZoneId zone) {
        this.format = format;
        this.ncsaTime = NCSA_TIME.withZone(zone);
    }

    /**
     * Appends one line, with its line feed.
     *
     * @param entry the entry
     * @param line where to append
     */
    void format(AccessLogEntry entry, StringBuilder line) {
        if (format == AccessLog.Format.JSON) {
            json(entry, line);
        } else {
            combined(entry, line);
        }
        line.append('\n');
    }

    /**
     * {@code %h - - [%t] "%r" %>s %b "%{Referer}i" "%{User-Agent}i" %D "%{X-Request-Id}o" %X}: NCSA combined, then
     * the duration in microseconds, the request id, and {@code X} for an aborted response ({@code -} otherwise).
     */
    private void combined(AccessLogEntry entry, StringBuilder line) {
        escape(line, client(entry.client()), false);
        line.append(" - - [").append(second(entry.startMillis())).append("] \"");
        escape(line, entry.method(), true);
        line.append(' ');
        escape(line, entry.target(), true);
        line.append(' ').append(entry.version().asString()).append("\" ");
        line.append(entry.status()).append(' ');
        if (entry.bytes() > 0) {
            line.append(entry.bytes());
        } else {
            line.append('-');
        }
        line.append(' ');
        quoted(line, entry.referer());
        line.append(' ');
        quoted(line, entry.userAgent());
        line.append(' ').append(entry.durationNanos() / 1000).append(' ');
        quoted(line, entry.requestId());
        line.append(' ').append(entry.aborted() ? 'X' : '-');
    }

    private void json(AccessLogEntry entry, StringBuilder line) {
        line.append("{\"time\":\"").append(second(entry.startMillis())).append('.');
        int millis = (int) Math.floorMod(entry.startMillis(), 1000L);
        line.append((char) ('0' + millis / 100))
                .append((char) ('0' + millis / 10 % 10))
                .append((char) ('0' + millis % 10))
                .append("Z\",\"client\":");
        jsonString(line, client(entry.client()));
        line.append(",\"method\":");
        jsonString(line, entry.method());
        line.append(",\"target\":");
        jsonString(line, entry.target());
        line.append(",\"protocol\":\"").append(entry.version().asString());
        line.append("\",\"status\":").append(entry.status());
        line.append(",\"bytes\":").append(entry.bytes());
        line.append(",\"duration_us\":").append(entry.durationNanos() / 1000);
        line.append(",\"referer\":");
        jsonString(line, entry.referer());
        line.append(",\"user_agent\":");
        jsonString(line, entry.userAgent());
        line.append(",\"request_id\":");
        jsonString(line, entry.requestId());
        line.append(",\"aborted\":").append(entry.aborted()).append('}');
    }

    /** The time of the entry to the second, formatted once per second: entries come in time order, nearly. */
    private String second(long epochMillis) {
        long second = Math.floorDiv(epochMillis, 1000L);
        if (second != cachedSecond) {
            Instant instant = Instant.ofEpochSecond(second);
            cachedTime = format == AccessLog.Format.JSON ? ISO_SECOND.format(instant) : ncsaTime.format(instant);
            cachedSecond = second;
        }
        return cachedTime;
    }

    /** The client as a log shows it: the IP address (never a name lookup), or the Unix socket's path. */
    static String client(SocketAddress address) {
        if (address instanceof InetSocketAddress inet) {
            return inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
        }
        if (address instanceof UnixDomainSocketAddress unix) {
            String path = unix.getPath().toString();
            return path.isEmpty() ? "unix" : "unix:" + path;
        }
        return String.valueOf(address);
    }

    private static void quoted(StringBuilder line, String value) {
        line.append('"');
        if (value == null) {
            line.append('-');
        } else {
            escape(line, value, true);
        }
        line.append('"');
    }

    /**
     * Apache's escaping for NCSA lines: {@code \"} and {@code \\}, and {@code \xhh} (or {@code \}{@code uhhhh} beyond
     * Latin-1) for control characters, DEL and non-ASCII; outside quotes, spaces too, so that fields stay apart.
     */
    static void escape(StringBuilder line, String value, boolean quoted) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                line.append('\\').append(c);
            } else if (c > 0x20 && c < 0x7F || c == ' ' && quoted) {
                line.append(c);
            } else if (c <= 0xFF) {
                line.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            } else {
                unicode(line, c);
            }
        }
    }

    /** A JSON string (RFC 8259 §7) in ASCII: every control character, DEL and non-ASCII character escaped. */
    static void jsonString(StringBuilder line, String value) {
        if (value == null) {
            line.append("null");
            return;
        }
        line.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> line.append("\\\"");
                case '\\' -> line.append("\\\\");
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                case '\b' -> line.append("\\b");
                case '\f' -> line.append("\\f");
                default -> {
                    if (c >= 0x20 && c < 0x7F) {
                        line.append(c);
                    } else {
                        unicode(line, c);
                    }
                }
            }
        }
        line.append('"');
    }

    private static void unicode(StringBuilder line, char c) {
        line.append("\\u")
                .append(HEX[c >> 12])
                .append(HEX[(c >> 8) & 0xF])
                .append(HEX[(c >> 4) & 0xF])
                .append(HEX[c & 0xF]);
    }
}
