package dev.quarry.server;

import dev.quarry.http.FormData;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * How {@link Forms} reads an {@code application/x-www-form-urlencoded} body.
 *
 * @param maxSize the most body bytes; a larger body is a 413 (a declared Content-Length is checked before reading)
 * @param maxFields the most name/value pairs; more is a 413
 * @param charset the charset of the percent-decoded bytes when the Content-Type names none
 */
public record FormConfig(int maxSize, int maxFields, Charset charset) {
    /** 200 KiB, 1000 fields, UTF-8. */
    public static final FormConfig DEFAULT =
            new FormConfig(200 * 1024, FormData.DEFAULT_MAX_FIELDS, StandardCharsets.UTF_8);

    /** Checks the limits. */
    public FormConfig {
        if (maxSize < 0 || maxFields <= 0) {
            throw new IllegalArgumentException(
                    "form limits must be positive: maxSize " + maxSize + ", maxFields " + maxFields);
        }
        Objects.requireNonNull(charset, "charset");
    }

    /** @return a copy with {@code maxSize} */
    public FormConfig withMaxSize(int maxSize) {
        return new FormConfig(maxSize, maxFields, charset);
    }

    /** @return a copy with {@code maxFields} */
    public FormConfig withMaxFields(int maxFields) {
        return new FormConfig(maxSize, maxFields, charset);
    }

    /** @return a copy with {@code charset} */
    public FormConfig withCharset(Charset charset) {
        return new FormConfig(maxSize, maxFields, charset);
    }
}
