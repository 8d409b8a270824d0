package dev.quarry.server.test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A response as a raw client read it off the wire: status line, fields in order, the body with its framing removed,
 * and the trailers of a chunked body.
 *
 * @param version the version of the status line, e.g. {@code HTTP/1.1}
 * @param status the status code
 * @param reason the reason phrase
 * @param headers the header fields, in order
 * @param body the body bytes (de-chunked)
 * @param chunked whether the body was chunked
 * @param trailers the trailer fields of a chunked body
 */
public record RawResponse(
        String version,
        int status,
        String reason,
        List<Field> headers,
        byte[] body,
        boolean chunked,
        List<Field> trailers) {

    /** A field line, name as received. */
    public record Field(String name, String value) {
        @Override
        public String toString() {
            return name + ": " + value;
        }
    }

    /**
     * @param name a field name, any case
     * @return the first value of that header field
     */
    public Optional<String> header(String name) {
        return headers.stream()
                .filter(f -> f.name().equalsIgnoreCase(name))
                .map(Field::value)
                .findFirst();
    }

    /**
     * @param name a field name, any case
     * @return every value of that header field, in order
     */
    public List<String> headerValues(String name) {
        return headers.stream()
                .filter(f -> f.name().equalsIgnoreCase(name))
                .map(Field::value)
                .toList();
    }

    /**
     * @param name a field name, any case
     * @return the first value of that trailer field
     */
    public Optional<String> trailer(String name) {
        return trailers.stream()
                .filter(f -> f.name().equalsIgnoreCase(name))
                .map(Field::value)
                .findFirst();
    }

    /** @return whether the response says {@code Connection: close} */
    public boolean connectionClose() {
        return headerValues("Connection").stream()
                .flatMap(v -> List.of(v.split(",")).stream())
                .anyMatch(token -> token.trim().toLowerCase(Locale.ROOT).equals("close"));
    }

    /** @return the body as UTF-8 text */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** @return the status line and fields, and the body's length: short enough for an assertion message */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(version + " " + status + " " + reason);
        headers.forEach(f -> out.append("\n").append(f));
        out.append("\n[").append(body.length).append(" bytes").append(chunked ? ", chunked" : "");
        if (body.length <= 200) {
            out.append(": ").append(text().replace("\r", "\\r").replace("\n", "\\n"));
        }
        out.append("]");
        trailers.forEach(f -> out.append("\n").append(f).append(" (trailer)"));
        return out.toString();
    }
}
