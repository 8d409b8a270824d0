package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpStatus;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The status page: {@code GET .../status} as an HTML page that refreshes itself every two seconds and needs no
 * external asset (inline CSS, an empty inline icon so that browsers do not ask for {@code /favicon.ico}; the sections
 * flow in as many columns as the window holds), and {@code GET .../status.json} as JSON. A section's high-water marks
 * and limits follow its live figures under headings of their own. Non-blocking: it only reads counters.
 */
public final class StatusHandler implements AsyncHandler {
    private final Supplier<ServerStatus> status;

    /** @param status takes a snapshot */
    public StatusHandler(Supplier<ServerStatus> status) {
        this.status = Objects.requireNonNull(status, "status");
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        ServerStatus snapshot = status.get();
        boolean json = request.path().endsWith(".json");
        String body = json ? snapshot.toJson() : html(snapshot);
        response.status(HttpStatus.OK_200);
        response.headers().put("Content-Type", json ? "application/json" : "text/html; charset=utf-8");
        response.headers().put("Cache-Control", "no-store");
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }

    /** Renders a snapshot as a page: one table per section, nested maps and lists as nested tables. */
    static String html(ServerStatus snapshot) {
        StringBuilder out = new StringBuilder(8192);
        out.append("""
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8">
                <meta http-equiv="refresh" content="2">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <title>Quarry status</title>
                <link rel="icon" href="data:,">
                <style>
                body{font:14px/1.35 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5em 2em;color:#222;
                background:#fafafa}
                h1{font-size:1.5em;margin:0 0 .2em} .sub{color:#666;margin-bottom:1.2em}
                main{columns:18em;column-gap:1.2em}
                section{break-inside:avoid;margin:0 0 1.2em;background:#fff;border:1px solid #ddd;border-radius:6px;
                padding:.5em 1em .6em}
                h2{font-size:1.05em;margin:.1em 0 .4em;text-transform:capitalize}
                table{border-collapse:collapse;width:100%} section>table+table{margin-top:.4em;border-top:1px solid #eee}
                td{padding:.1em 0;vertical-align:top} td.k{color:#555;padding-right:1em;white-space:nowrap}
                td.v{font-variant-numeric:tabular-nums;text-align:right;overflow-wrap:anywhere}
                td.n{white-space:nowrap}
                th{text-align:left;font-weight:600;font-size:.85em;color:#777;padding:.5em 0 .1em}
                </style></head><body>
                """);
        out.append("<h1>Quarry status</h1><div class=\"sub\">")
                .append(escape(snapshot.name()))
                .append(" &middot; up ")
                .append(formatDuration(snapshot.uptime().toSeconds()))
                .append(
                        " &middot; refreshes every 2 s &middot; <a href=\"status.json\">status.json</a></div>\n<main>\n");
        for (Map.Entry<String, Object> section : snapshot.sections().entrySet()) {
            out.append("<section><h2>").append(escape(section.getKey())).append("</h2>");
            value(out, section.getValue());
            out.append("</section>\n");
        }
        out.append("</main></body></html>\n");
        return out.toString();
    }

    /**
     * A map as a table of label and value rows. A map inside it (a section's {@link ServerStatus#LIMITS} or
     * {@link ServerStatus#HIGH_WATER_MARKS}) continues the table under a heading row of its own, so that its values
     * line up with the live ones above; deeper maps nest as tables.
     */
    private static void table(StringBuilder out, Map<?, ?> map) {
        out.append("<table>");
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (entry.getValue() instanceof Map<?, ?> group) {
                if (group.isEmpty()) {
                    continue;
                }
                out.append("<tr><th colspan=\"2\">")
                        .append(escape(String.valueOf(entry.getKey())))
                        .append("</th></tr>");
                for (Map.Entry<?, ?> member : group.entrySet()) {
                    row(out, member.getKey(), member.getValue());
                }
            } else {
                row(out, entry.getKey(), entry.getValue());
            }
        }
        out.append("</table>");
    }

    private static void row(StringBuilder out, Object key, Object value) {
        // A number never breaks across lines (262,14|4 would read as two numbers); a long text may.
        out.append("<tr><td class=\"k\">")
                .append(escape(String.valueOf(key)))
                .append(value instanceof Number ? "</td><td class=\"v n\">" : "</td><td class=\"v\">");
        value(out, value);
        out.append("</td></tr>");
    }

    private static void value(StringBuilder out, Object value) {
        if (value instanceof Map<?, ?> map) {
            table(out, map);
        } else if (value instanceof List<?> list) {
            if (list.isEmpty()) {
                out.append("&ndash;");
            }
            for (Object item : list) {
                value(out, item);
            }
        } else if (value instanceof Double d) {
            out.append(String.format(java.util.Locale.ROOT, "%,.2f", d));
        } else if (value instanceof Long || value instanceof Integer) {
            out.append(String.format(java.util.Locale.ROOT, "%,d", ((Number) value).longValue()));
        } else {
            out.append(escape(String.valueOf(value)));
        }
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    private static String formatDuration(long seconds) {
        if (seconds < 60) {
            return seconds + " s";
        }
        if (seconds < 3600) {
            return seconds / 60 + " min " + seconds % 60 + " s";
        }
        return seconds / 3600 + " h " + (seconds % 3600) / 60 + " min";
    }

    @Override
    public String toString() {
        return "StatusHandler";
    }

    /** @return {@link InvocationType#NON_BLOCKING}: it only computes and writes, in place */
    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }
}
