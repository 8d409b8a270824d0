package dev.quarry.server.handlers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Renders a directory as an HTML page, like nginx's autoindex: directories first, then files, each sorted by name,
 * with sizes readable by people ({@code 1.2 KiB}, {@code 3.4 MiB}; the exact count of bytes in the title that shows on
 * hover) and modification dates in UTC.
 *
 * <p>Escaping: every name is percent-encoded in its link (all but the unreserved characters of RFC 3986, so a name
 * such as {@code javascript:x} stays a relative link) and HTML-escaped in its text, as is the title. Entries that could
 * not be served are not listed: hidden names (unless served), and links that lead outside the root or nowhere. At most
 * {@link #MAX_ENTRIES} entries are read, so that a huge directory cannot make a huge page.
 *
 * <p>Thread-safety: stateless. Cost: reads the directory and stats each entry (blocking, uncached).
 */
final class DirectoryListing {
    /** The most entries listed. */
    static final int MAX_ENTRIES = 10_000;

    private static final DateTimeFormatter DATE =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private record Entry(String name, boolean directory, long size, String modified) {}

    private DirectoryListing() {}

    /**
     * @param directory the directory's real path
     * @param requestPath the decoded request path that named it, for the title
     * @param resolver decides which entries may be served
     * @return the page, UTF-8
     * @throws IOException if the directory cannot be read
     */
    static byte[] render(Path directory, String requestPath, FileResolver resolver) throws IOException {
        List<Entry> entries = new ArrayList<>();
        boolean truncated = false;
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            for (Path child : stream) {
                if (entries.size() == MAX_ENTRIES) {
                    truncated = true;
                    break;
                }
                Entry entry = entry(child, resolver);
                if (entry != null) {
                    entries.add(entry);
                }
            }
        }
        entries.sort(Comparator.comparing((Entry e) -> !e.directory()).thenComparing(Entry::name));
        String title = "Index of " + escapeHtml(requestPath);
        StringBuilder html = new StringBuilder(512 + entries.size() * 160);
        html.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>")
                .append(title)
                .append("</title>\n<style>body{font-family:sans-serif}td{padding:0 1em}td.n{text-align:right}</style>")
                .append("</head>\n<body><h1>")
                .append(title)
                .append("</h1>\n<table>\n<tr><th>Name</th><th>Size</th><th>Last modified (UTC)</th></tr>\n");
        if (!directory.equals(resolver.root())) {
            html.append("<tr><td><a href=\"../\">../</a></td><td></td><td></td></tr>\n");
        }
        for (Entry entry : entries) {
            String suffix = entry.directory() ? "/" : "";
            html.append("<tr><td><a href=\"")
                    .append(escapeHtml(encodeSegment(entry.name())))
                    .append(suffix)
                    .append("\">")
                    .append(escapeHtml(entry.name()))
                    .append(suffix)
                    .append("</a></td>");
            if (entry.directory()) {
                html.append("<td class=\"n\">-</td><td>");
            } else {
                html.append("<td class=\"n\" title=\"")
                        .append(entry.size())
                        .append(entry.size() == 1 ? " byte" : " bytes")
                        .append("\">")
                        .append(humanSize(entry.size()))
                        .append("</td><td>");
            }
            html.append(entry.modified()).append("</td></tr>\n");
        }
        html.append("</table>\n");
        if (truncated) {
            html.append("<p>Only the first ").append(MAX_ENTRIES).append(" entries are listed.</p>\n");
        }
        html.append("</body></html>\n");
        return html.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static Entry entry(Path child, FileResolver resolver) {
        String name = child.getFileName().toString();
        if (name.startsWith(".") && !resolver.serveHidden()) {
            return null;
        }
        try {
            BasicFileAttributes attributes =
                    Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attributes.isSymbolicLink()) {
                Path real = child.toRealPath();
                if (!resolver.isServable(real)) {
                    return null;
                }
                attributes = Files.readAttributes(real, BasicFileAttributes.class);
            }
            if (!attributes.isDirectory() && !attributes.isRegularFile()) {
                return null;
            }
            return new Entry(
                    name,
                    attributes.isDirectory(),
                    attributes.size(),
                    DATE.format(attributes.lastModifiedTime().toInstant()));
        } catch (IOException x) {
            return null; // a broken link, or gone since the directory was read
        }
    }

    /**
     * @param bytes a size
     * @return it in bytes below 1 KiB, else with one decimal in the largest binary unit that keeps it at least 1:
     *     {@code 512 B}, {@code 1.2 KiB}, {@code 3.4 MiB}, {@code 1.0 GiB}
     */
    static String humanSize(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        int unit = 0;
        double value = bytes / 1024.0;
        // Round first, so that 1048575 bytes show as 1.0 MiB rather than 1024.0 KiB.
        while (unit < units.length - 1 && Math.round(value * 10) >= 1024 * 10) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** Percent-encodes all but RFC 3986 unreserved characters, as UTF-8. */
    static String encodeSegment(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 16);
        for (byte b : bytes) {
            int c = b & 0xFF;
            if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.toString();
    }

    /** Escapes the five characters that are special in HTML text and attribute values. */
    static String escapeHtml(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String replacement = switch (c) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                default -> null;
            };
            if (replacement != null) {
                if (out == null) {
                    out = new StringBuilder(text.length() + 16).append(text, 0, i);
                }
                out.append(replacement);
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }
}
