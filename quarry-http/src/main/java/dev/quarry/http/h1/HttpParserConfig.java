package dev.quarry.http.h1;

import dev.quarry.http.HttpCompliance;
import java.util.Objects;

/**
 * The limits and compliance mode of an {@link HttpParser}. Every limit answers a hostile peer with an error status
 * instead of unbounded buffering.
 *
 * <p>Thread-safety: immutable; one instance is shared by every parser of a connector.
 *
 * @param maxRequestLineLength the longest request line, CRLF included; beyond: 414 URI Too Long
 * @param maxHeaderSize the largest header section (every field line and the final empty line, CRLFs included);
 *     beyond: 431
 * @param maxFieldCount the most field lines in the header section, and separately in the trailer section; beyond: 431
 * @param maxChunkExtensionLength the longest chunk extension (the bytes between the chunk size and CRLF); beyond: 400
 * @param maxTrailerSize the largest trailer section, like {@code maxHeaderSize}; beyond: 431
 * @param maxLeadingEmptyLines the most empty lines ignored before a request line (RFC 9112 §2.2); beyond: 400
 * @param maxContentLength the largest request content, declared or chunked; beyond: 413
 * @param compliance the leniencies allowed
 */
public record HttpParserConfig(
        int maxRequestLineLength,
        int maxHeaderSize,
        int maxFieldCount,
        int maxChunkExtensionLength,
        int maxTrailerSize,
        int maxLeadingEmptyLines,
        long maxContentLength,
        HttpCompliance compliance) {

    /** 8 KiB request line, 8 KiB header section, 100 fields, 256-byte chunk extensions, 8 KiB trailers, strict. */
    public static final HttpParserConfig DEFAULT = builder().build();

    /** Validates the limits. */
    public HttpParserConfig {
        positive("maxRequestLineLength", maxRequestLineLength);
        positive("maxHeaderSize", maxHeaderSize);
        positive("maxFieldCount", maxFieldCount);
        positive("maxChunkExtensionLength", maxChunkExtensionLength);
        positive("maxTrailerSize", maxTrailerSize);
        if (maxLeadingEmptyLines < 0) {
            throw new IllegalArgumentException("maxLeadingEmptyLines < 0: " + maxLeadingEmptyLines);
        }
        if (maxContentLength < 0) {
            throw new IllegalArgumentException("maxContentLength < 0: " + maxContentLength);
        }
        Objects.requireNonNull(compliance, "compliance");
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
    }

    /** @return a builder with the default values */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder initialised with this configuration */
    public Builder toBuilder() {
        return new Builder()
                .maxRequestLineLength(maxRequestLineLength)
                .maxHeaderSize(maxHeaderSize)
                .maxFieldCount(maxFieldCount)
                .maxChunkExtensionLength(maxChunkExtensionLength)
                .maxTrailerSize(maxTrailerSize)
                .maxLeadingEmptyLines(maxLeadingEmptyLines)
                .maxContentLength(maxContentLength)
                .compliance(compliance);
    }

    /** Builds an {@link HttpParserConfig}; not thread-safe. */
    public static final class Builder {
        private int maxRequestLineLength = 8 * 1024;
        private int maxHeaderSize = 8 * 1024;
        private int maxFieldCount = 100;
        private int maxChunkExtensionLength = 256;
        private int maxTrailerSize = 8 * 1024;
        private int maxLeadingEmptyLines = 4;
        private long maxContentLength = Long.MAX_VALUE;
        private HttpCompliance compliance = HttpCompliance.STRICT;

        private Builder() {}

        /** @param value the longest request line in bytes, CRLF included (default 8192) */
        public Builder maxRequestLineLength(int value) {
            this.maxRequestLineLength = value;
            return this;
        }

        /** @param value the largest header section in bytes (default 8192) */
        public Builder maxHeaderSize(int value) {
            this.maxHeaderSize = value;
            return this;
        }

        /** @param value the most field lines per section (default 100) */
        public Builder maxFieldCount(int value) {
            this.maxFieldCount = value;
            return this;
        }

        /** @param value the longest chunk extension in bytes (default 256) */
        public Builder maxChunkExtensionLength(int value) {
            this.maxChunkExtensionLength = value;
            return this;
        }

        /** @param value the largest trailer section in bytes (default 8192) */
        public Builder maxTrailerSize(int value) {
            this.maxTrailerSize = value;
            return this;
        }

        /** @param value the most empty lines ignored before a request line (default 4) */
        public Builder maxLeadingEmptyLines(int value) {
            this.maxLeadingEmptyLines = value;
            return this;
        }

        /** @param value the largest request content in bytes (default unlimited) */
        public Builder maxContentLength(long value) {
            this.maxContentLength = value;
            return this;
        }

        /** @param value the leniencies allowed (default {@link HttpCompliance#STRICT}) */
        public Builder compliance(HttpCompliance value) {
            this.compliance = value;
            return this;
        }

        /** @return the configuration */
        public HttpParserConfig build() {
            return new HttpParserConfig(
                    maxRequestLineLength,
                    maxHeaderSize,
                    maxFieldCount,
                    maxChunkExtensionLength,
                    maxTrailerSize,
                    maxLeadingEmptyLines,
                    maxContentLength,
                    compliance);
        }
    }
}
