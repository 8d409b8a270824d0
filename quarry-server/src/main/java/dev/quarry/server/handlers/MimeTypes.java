package dev.quarry.server.handlers;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Content types by file name extension: a built-in table of the types a web site serves, extendable. Text types get
 * {@code ; charset=utf-8}: {@code text/*}, and JavaScript, which browsers decode as UTF-8 only when told; JSON, SVG
 * and XML do not (JSON is always UTF-8, RFC 8259 §8.1, and defines no charset parameter; XML declares its own encoding).
 * Unknown extensions are {@code application/octet-stream}, which browsers download rather than render.
 *
 * <p>Thread-safety: immutable. Cost: one hash lookup of the lower-cased extension.
 */
public final class MimeTypes {
    /** The type of files whose extension is unknown. */
    public static final String DEFAULT_TYPE = "application/octet-stream";

    private static final MimeTypes DEFAULTS = new MimeTypes(builtIn());

    private final Map<String, String> byExtension;

    private MimeTypes(Map<String, String> byExtension) {
        this.byExtension = Map.copyOf(byExtension);
    }

    /** @return the built-in table */
    public static MimeTypes defaults() {
        return DEFAULTS;
    }

    /**
     * @param extension an extension without the dot, any case, e.g. {@code "avif"}
     * @param contentType its full Content-Type, e.g. {@code "image/avif"}; add a charset yourself for text
     * @return a table with this mapping added or replaced
     */
    public MimeTypes with(String extension, String contentType) {
        Objects.requireNonNull(extension, "extension");
        Objects.requireNonNull(contentType, "contentType");
        if (extension.isEmpty() || extension.indexOf('.') >= 0 || extension.indexOf('/') >= 0) {
            throw new IllegalArgumentException("extension must be a name without dots or slashes: '" + extension + "'");
        }
        if (contentType.indexOf('/') <= 0 || contentType.chars().anyMatch(c -> c < 0x20 || c > 0x7E)) {
            throw new IllegalArgumentException("not a media type: '" + contentType + "'");
        }
        Map<String, String> copy = new HashMap<>(byExtension);
        copy.put(extension.toLowerCase(Locale.ROOT), contentType);
        return new MimeTypes(copy);
    }

    /**
     * @param fileName a file name (or path): only what follows its last dot counts
     * @return its Content-Type, or {@link #DEFAULT_TYPE}
     */
    public String contentType(String fileName) {
        int dot = fileName.lastIndexOf('.');
        int slash = fileName.lastIndexOf('/');
        if (dot < 0 || dot < slash || dot == fileName.length() - 1) {
            return DEFAULT_TYPE;
        }
        String type = byExtension.get(fileName.substring(dot + 1).toLowerCase(Locale.ROOT));
        return type != null ? type : DEFAULT_TYPE;
    }

    @Override
    public String toString() {
        return "MimeTypes{" + byExtension.size() + " extensions}";
    }

    private static Map<String, String> builtIn() {
        Map<String, String> m = new HashMap<>();
        String utf8 = "; charset=utf-8";
        // Text
        m.put("html", "text/html" + utf8);
        m.put("htm", "text/html" + utf8);
        m.put("css", "text/css" + utf8);
        m.put("js", "text/javascript" + utf8);
        m.put("mjs", "text/javascript" + utf8);
        m.put("txt", "text/plain" + utf8);
        m.put("text", "text/plain" + utf8);
        m.put("md", "text/markdown" + utf8);
        m.put("csv", "text/csv" + utf8);
        m.put("tsv", "text/tab-separated-values" + utf8);
        m.put("ics", "text/calendar" + utf8);
        m.put("vtt", "text/vtt" + utf8);
        m.put("json", "application/json");
        m.put("map", "application/json");
        m.put("jsonld", "application/ld+json");
        m.put("webmanifest", "application/manifest+json");
        m.put("xml", "application/xml");
        m.put("xhtml", "application/xhtml+xml");
        m.put("rss", "application/rss+xml");
        m.put("atom", "application/atom+xml");
        m.put("svg", "image/svg+xml");
        // Images
        m.put("png", "image/png");
        m.put("jpg", "image/jpeg");
        m.put("jpeg", "image/jpeg");
        m.put("gif", "image/gif");
        m.put("webp", "image/webp");
        m.put("avif", "image/avif");
        m.put("ico", "image/x-icon");
        m.put("bmp", "image/bmp");
        m.put("tif", "image/tiff");
        m.put("tiff", "image/tiff");
        // Fonts
        m.put("woff", "font/woff");
        m.put("woff2", "font/woff2");
        m.put("ttf", "font/ttf");
        m.put("otf", "font/otf");
        // Audio and video
        m.put("mp4", "video/mp4");
        m.put("m4v", "video/mp4");
        m.put("webm", "video/webm");
        m.put("ogv", "video/ogg");
        m.put("mov", "video/quicktime");
        m.put("mp3", "audio/mpeg");
        m.put("m4a", "audio/mp4");
        m.put("ogg", "audio/ogg");
        m.put("oga", "audio/ogg");
        m.put("opus", "audio/ogg");
        m.put("wav", "audio/wav");
        m.put("flac", "audio/flac");
        // Applications and archives
        m.put("wasm", "application/wasm");
        m.put("pdf", "application/pdf");
        m.put("zip", "application/zip");
        m.put("gz", "application/gzip");
        m.put("tgz", "application/gzip");
        m.put("br", "application/x-brotli");
        m.put("zst", "application/zstd");
        m.put("tar", "application/x-tar");
        m.put("7z", "application/x-7z-compressed");
        m.put("jar", "application/java-archive");
        m.put("bin", DEFAULT_TYPE);
        return m;
    }
}
