package dev.quarry.http;

import dev.quarry.http.internal.FieldParameters;
import dev.quarry.http.internal.HttpChars;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A media type as in a Content-Type field (RFC 9110 §8.3.1): {@code type/subtype} and parameters, e.g.
 * {@code multipart/form-data; boundary=x} or {@code text/plain; charset=utf-8}. Type, subtype and parameter names are
 * case-insensitive and kept lower-case; parameter values are kept as sent, unquoted.
 *
 * <p>Thread-safety: immutable. Cost: O(length) parse.
 */
public final class MediaType {
    private final String type;
    private final String subtype;
    private final Map<String, String> parameters;

    private MediaType(String type, String subtype, Map<String, String> parameters) {
        this.type = type;
        this.subtype = subtype;
        this.parameters = parameters;
    }

    /**
     * @param value a Content-Type field value
     * @return the media type
     * @throws BadMessageException 400 naming the problem if {@code value} is not a media type
     */
    public static MediaType parse(String value) {
        int slash = value.indexOf('/');
        int start = 0;
        while (start < value.length() && HttpChars.isWhitespace(value.charAt(start))) {
            start++;
        }
        int end = slash + 1;
        while (end < value.length() && value.charAt(end) < 0x80 && HttpChars.isTChar(value.charAt(end))) {
            end++;
        }
        if (slash < 0 || !HttpChars.isToken(value.substring(start, slash)) || end == slash + 1) {
            throw new BadMessageException("invalid media type: " + HttpChars.quote(value));
        }
        Map<String, String> parameters = new LinkedHashMap<>(4);
        FieldParameters.parse(value, end, parameters, "media type");
        return new MediaType(
                value.substring(start, slash).toLowerCase(Locale.ROOT),
                value.substring(slash + 1, end).toLowerCase(Locale.ROOT),
                Collections.unmodifiableMap(parameters));
    }

    /** @return the type, lower-case, e.g. {@code multipart} */
    public String type() {
        return type;
    }

    /** @return the subtype, lower-case, e.g. {@code form-data} */
    public String subtype() {
        return subtype;
    }

    /**
     * @param typeAndSubtype e.g. {@code application/x-www-form-urlencoded}, any case
     * @return whether this media type is that one (parameters aside)
     */
    public boolean is(String typeAndSubtype) {
        return typeAndSubtype.length() == type.length() + 1 + subtype.length()
                && typeAndSubtype.regionMatches(true, 0, type, 0, type.length())
                && typeAndSubtype.charAt(type.length()) == '/'
                && typeAndSubtype.regionMatches(true, type.length() + 1, subtype, 0, subtype.length());
    }

    /**
     * @param name a parameter name, any case
     * @return its value, unquoted
     */
    public Optional<String> parameter(String name) {
        return Optional.ofNullable(parameters.get(name.toLowerCase(Locale.ROOT)));
    }

    /** @return the parameters, names lower-case, in order; unmodifiable */
    public Map<String, String> parameters() {
        return parameters;
    }

    /**
     * @return the charset named by the {@code charset} parameter
     * @throws HttpException 415 if the charset is unknown to this JVM
     */
    public Optional<Charset> charset() {
        String name = parameters.get("charset");
        if (name == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Charset.forName(name));
        } catch (IllegalCharsetNameException | UnsupportedCharsetException x) {
            throw new HttpException(
                    HttpStatus.UNSUPPORTED_MEDIA_TYPE_415, "unsupported charset: " + HttpChars.quote(name), x);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof MediaType that
                && type.equals(that.type)
                && subtype.equals(that.subtype)
                && parameters.equals(that.parameters);
    }

    @Override
    public int hashCode() {
        return (type.hashCode() * 31 + subtype.hashCode()) * 31 + parameters.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(type).append('/').append(subtype);
        parameters.forEach((name, value) -> {
            out.append("; ").append(name).append('=');
            if (HttpChars.isToken(value)) {
                out.append(value);
            } else {
                out.append('"')
                        .append(value.replace("\\", "\\\\").replace("\"", "\\\""))
                        .append('"');
            }
        });
        return out.toString();
    }
}
