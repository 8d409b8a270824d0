package dev.quarry.http.h2;

import dev.quarry.http.HttpFields;
import java.util.Objects;
import java.util.Optional;

/**
 * A decoded header block: the pseudo-header fields, the regular fields, and the first HTTP/2 message rule the block
 * broke while it was decoded (uppercase name, connection-specific field, pseudo-header after a regular one, unknown or
 * repeated pseudo-header, forbidden characters), which makes the message malformed (RFC 9113 8.1.1). Whether the block
 * is a valid request or valid trailers is decided by {@link Http2Messages}, which knows which one the stream expects.
 *
 * @param method {@code :method}, or null
 * @param scheme {@code :scheme}, or null
 * @param authority {@code :authority}, or null
 * @param path {@code :path}, or null
 * @param protocol {@code :protocol} (extended CONNECT), or null
 * @param status {@code :status}, or null (only in responses)
 * @param fields the regular fields, in order, names lowercase
 * @param malformed the first rule the block broke, if any
 * @param tooLarge whether the decoded list exceeded our SETTINGS_MAX_HEADER_LIST_SIZE (then fields are incomplete:
 *     answer 431 or reset the stream)
 */
public record HeaderBlock(
        String method,
        String scheme,
        String authority,
        String path,
        String protocol,
        String status,
        HttpFields fields,
        Optional<String> malformed,
        boolean tooLarge) {

    /** Validates the non-null parts. */
    public HeaderBlock {
        Objects.requireNonNull(fields, "fields");
        Objects.requireNonNull(malformed, "malformed");
    }

    /** @return whether any pseudo-header is present */
    public boolean hasPseudoHeaders() {
        return method != null
                || scheme != null
                || authority != null
                || path != null
                || protocol != null
                || status != null;
    }
}
