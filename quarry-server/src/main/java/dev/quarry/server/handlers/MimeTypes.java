package dev.quarry.server.handlers;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Content types by file name extension: a built-in table of the types a web site serves, extendable. Text types get
 * {@code ; charset=utf-8}: {@code text/*}, and JavaScript, which browsers decode as UTF-8 only when told; JSON, SVG
 * and XML do not (JSON is always UTF-8, RFC 8259 §8.1, and defines no charset parameter; XML declares its own encoding).
 *
 * <p>Source code, configuration and documentation ({@code .py}, {@code .sh}, {@code .c}, {@code .java}, {@code .rs},
 * {@code .go}, {@code .yaml}, {@code .toml}, {@code .ini}, {@code .conf}, {@code .md}, {@code .csv}, ...) are
 * {@code text/plain; charset=utf-8}, so that a browser shows them instead of downloading them: browsers render
 * {@code text/plain} but download {@code text/markdown}, {@code text/csv} and {@code text/x-python}. Types that a
 * browser or a client acts on keep their own ({@code .js}, {@code .json}, {@code .svg}, {@code .xml}, {@code .vtt}).
 * So do files without an extension that are usually text ({@code README}, {@code LICENSE}, {@code Makefile},
 * {@code Dockerfile}, ...). Other names without an extension are unknown here; {@link StaticFiles} then looks at the
 * first KiB of the file, and serves it as {@code text/plain; charset=utf-8} if it is UTF-8 without control characters. Unknown extensions are {@code application/octet-stream}, which
 * browsers download rather than render.
 *
 * <p>Thread-safety: immutable. Cost: one hash lookup of the lower-cased extension or name.
 */
public final class MimeTypes {
    /** The type of files whose extension is unknown. */
    public static final String DEFAULT_TYPE = "application/octet-stream";

    private static final String TEXT_PLAIN = "text/plain; charset=utf-8";
    private static final MimeTypes DEFAULTS = new MimeTypes(builtIn());
    // File names without an extension that are text, lower case.
    private static final Set<String> TEXT_NAMES = Set.of(
            "readme",
            "license",
            "licence",
            "copying",
            "notice",
            "authors",
            "contributors",
            "changelog",
            "changes",
            "history",
            "news",
            "install",
            "todo",
            "makefile",
            "gnumakefile",
            "dockerfile",
            "containerfile",
            "vagrantfile",
            "jenkinsfile",
            "procfile",
            "gemfile",
            "rakefile",
            "brewfile",
            "justfile",
            "codeowners",
            "cname");

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
     * @param contentType its Content-Type, e.g. {@code "image/avif"}; a {@code text/*} type without a charset gets
     *     {@code ; charset=utf-8}
     * @return a table with this mapping added or replaced
     * @throws IllegalArgumentException naming the value if the extension has a dot or slash, or the type is not a
     *     media type
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
        String type = contentType.strip();
        if (type.regionMatches(true, 0, "text/", 0, 5)
                && !type.toLowerCase(Locale.ROOT).contains("charset=")) {
            type = type + "; charset=utf-8";
        }
        Map<String, String> copy = new HashMap<>(byExtension);
        copy.put(extension.toLowerCase(Locale.ROOT), type);
        return new MimeTypes(copy);
    }

    /**
     * @param fileName a file name (or path): what follows its last dot counts, or the whole name if it has no dot
     * @return its Content-Type, or {@link #DEFAULT_TYPE}
     */
    public String contentType(String fileName) {
        String type = knownType(fileName);
        return type != null ? type : DEFAULT_TYPE;
    }

    /** @return the type of the extension or of the name without extension, or null if unknown */
    String knownType(String fileName) {
        int dot = fileName.lastIndexOf('.');
        int slash = fileName.lastIndexOf('/');
        if (dot <= slash) {
            return TEXT_NAMES.contains(fileName.substring(slash + 1).toLowerCase(Locale.ROOT)) ? TEXT_PLAIN : null;
        }
        if (dot == fileName.length() - 1) {
            return null;
        }
        return byExtension.get(fileName.substring(dot + 1).toLowerCase(Locale.ROOT));
    }

    /** @return whether the last segment of the path has no dot, so that only its content can tell its type */
    static boolean hasNoExtension(String fileName) {
        return fileName.lastIndexOf('.') <= fileName.lastIndexOf('/');
    }

    /**
     * Whether the first bytes of a file look like UTF-8 text (ASCII included): valid UTF-8, and no control character
     * but tab, line feed, form feed, carriage return and escape. A multi-byte sequence cut by the end of the sample is
     * accepted. An empty sample is text.
     *
     * @param bytes the sample, e.g. the first KiB of the file
     * @param length how many bytes of it to look at
     * @return whether to serve it as {@code text/plain; charset=utf-8}
     */
    static boolean looksLikeText(byte[] bytes, int length) {
        int i = 0;
        while (i < length) {
            int b = bytes[i] & 0xFF;
            if (b < 0x80) {
                if (b < 0x20 && b != '\t' && b != '\n' && b != '\f' && b != '\r' && b != 0x1B || b == 0x7F) {
                    return false;
                }
                i++;
                continue;
            }
            int continuation;
            if (b >= 0xC2 && b <= 0xDF) {
                continuation = 1;
            } else if (b >= 0xE0 && b <= 0xEF) {
                continuation = 2;
            } else if (b >= 0xF0 && b <= 0xF4) {
                continuation = 3;
            } else {
                return false; // a continuation byte without lead, an overlong lead, or beyond U+10FFFF
            }
            for (int c = 1; c <= continuation; c++) {
                if (i + c >= length) {
                    return true; // cut by the end of the sample
                }
                if ((bytes[i + c] & 0xC0) != 0x80) {
                    return false;
                }
            }
            i += continuation + 1;
        }
        return true;
    }

    /**
     * @param type a Content-Type
     * @return whether compressing it pays: text, JSON, JavaScript, XML (SVG included) and WebAssembly; not images,
     *     audio, video, fonts in WOFF (compressed already) or archives
     */
    static boolean isCompressible(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        int semicolon = t.indexOf(';');
        if (semicolon >= 0) {
            t = t.substring(0, semicolon).strip();
        }
        return t.startsWith("text/")
                || t.endsWith("+json")
                || t.endsWith("+xml")
                || t.equals("application/json")
                || t.equals("application/javascript")
                || t.equals("application/xml")
                || t.equals("application/wasm")
                || t.equals("font/ttf")
                || t.equals("font/otf")
                || t.equals("image/x-icon")
                || t.equals("image/bmp");
    }

    @Override
    public String toString() {
        return "MimeTypes{" + byExtension.size() + " extensions}";
    }

    // Served as text/plain; charset=utf-8. Not "ts": it is also MPEG transport streams (video/mp2t, HLS segments).
    private static final String TEXT_EXTENSIONS = """
            txt text log md markdown rst adoc asciidoc org tex bib csv tsv diff patch
            c h cc cpp cxx hh hpp hxx m mm java kt kts scala groovy gradle clj cljs edn
            rs go py pyi rb pl pm php lua r swift dart ex exs erl hrl hs elm ml mli fs fsx cs vb zig nim
            jsx tsx vue svelte coffee scss sass less
            sh bash zsh fish ps1 psm1 bat cmd awk sed vim el lisp scm rkt
            sql graphql gql proto thrift avsc cmake mk make tf tfvars hcl nix
            yaml yml toml ini cfg conf config properties env editorconfig gitignore gitattributes dockerignore
            lock sum mod pom sbt
            """;

    private static Map<String, String> builtIn() {
        Map<String, String> m = new HashMap<>();
        String utf8 = "; charset=utf-8";
        // Text
        m.put("html", "text/html" + utf8);
        m.put("htm", "text/html" + utf8);
        m.put("css", "text/css" + utf8);
        m.put("js", "text/javascript" + utf8);
        m.put("mjs", "text/javascript" + utf8);
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
        // Source code, configuration, documentation and data that browsers should show rather than download
        for (String extension : TEXT_EXTENSIONS.split("\\s+")) {
            m.put(extension, TEXT_PLAIN);
        }
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
