package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A Set-Cookie field value (RFC 6265 §4.1), built and validated: {@link #toString()} is the field value, e.g.
 * {@code session=abc; Path=/; Max-Age=3600; Secure; HttpOnly; SameSite=Lax}.
 *
 * <p>What {@link Builder} checks, each failure an {@link IllegalArgumentException} naming the problem and the value:
 *
 * <ul>
 *   <li>the name is a token (RFC 6265 §4.1.1, {@code cookie-name}); the value is {@code cookie-octet}s (visible ASCII
 *       except {@code " , ; \}), optionally in double quotes: encode anything else (e.g. Base64url) before;
 *   <li>Domain is a host name (letters, digits, {@code -} in dot-separated labels; a leading dot is dropped, as user
 *       agents ignore it); Path starts with {@code /} and has no control character or {@code ;};
 *   <li>Max-Age is not negative (zero deletes the cookie); Expires is a year 1601 to 9999, sent as an IMF-fixdate;
 *   <li>{@code SameSite=None} and {@code Partitioned} require Secure (browsers drop the cookie otherwise); a name
 *       starting with {@code __Secure-} requires Secure, and {@code __Host-} requires Secure, {@code Path=/} and no
 *       Domain (the cookie prefixes of RFC 6265bis §4.1.3).
 * </ul>
 *
 * <p>Thread-safety: immutable; the builder is not thread-safe.
 */
public final class SetCookie {
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.ofPattern(
                    "EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);
    // 1601-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years an IMF-fixdate (four digits) and RFC 6265 §5.1.1 allow.
    private static final long MIN_EXPIRES = -11_644_473_600L;
    private static final long MAX_EXPIRES = 253_402_300_799L;

    /** The SameSite attribute (RFC 6265bis §4.1.2.7): when a browser sends the cookie with cross-site requests. */
    public enum SameSite {
        /** Only with same-site requests. */
        STRICT("Strict"),
        /** With same-site requests and top-level cross-site navigations (the browsers' default). */
        LAX("Lax"),
        /** With every request; requires Secure. */
        NONE("None");

        private final String attribute;

        SameSite(String attribute) {
            this.attribute = attribute;
        }

        /** @return the attribute value, e.g. {@code Lax} */
        public String attributeValue() {
            return attribute;
        }
    }

    private final String name;
    private final String value;
    private final String domain;
    private final String path;
    private final Duration maxAge;
    private final Instant expires;
    private final boolean secure;
    private final boolean httpOnly;
    private final SameSite sameSite;
    private final boolean partitioned;
    private final String fieldValue;

    private SetCookie(Builder b) {
        this.name = b.name;
        this.value = b.value;
        this.domain = b.domain;
        this.path = b.path;
        this.maxAge = b.maxAge;
        this.expires = b.expires;
        this.secure = b.secure;
        this.httpOnly = b.httpOnly;
        this.sameSite = b.sameSite;
        this.partitioned = b.partitioned;
        StringBuilder out = new StringBuilder(64).append(name).append('=').append(value);
        if (domain != null) {
            out.append("; Domain=").append(domain);
        }
        if (path != null) {
            out.append("; Path=").append(path);
        }
        if (maxAge != null) {
            out.append("; Max-Age=").append(maxAge.toSeconds());
        }
        if (expires != null) {
            out.append("; Expires=").append(IMF_FIXDATE.format(expires));
        }
        if (secure) {
            out.append("; Secure");
        }
        if (httpOnly) {
            out.append("; HttpOnly");
        }
        if (sameSite != null) {
            out.append("; SameSite=").append(sameSite.attributeValue());
        }
        if (partitioned) {
            out.append("; Partitioned");
        }
        this.fieldValue = out.toString();
    }

    /**
     * @param name the cookie name, a token
     * @param value the value: cookie-octets, optionally in double quotes; may be empty
     * @return a builder without attributes
     * @throws IllegalArgumentException if the name or the value has a character RFC 6265 §4.1.1 forbids
     */
    public static Builder builder(String name, String value) {
        return new Builder(name, value);
    }

    /**
     * @param name the cookie name
     * @param value the value
     * @return a cookie without attributes
     * @throws IllegalArgumentException if the name or the value has a character RFC 6265 §4.1.1 forbids
     */
    public static SetCookie of(String name, String value) {
        return builder(name, value).build();
    }

    /** @return the name */
    public String name() {
        return name;
    }

    /** @return the value, as it will be sent */
    public String value() {
        return value;
    }

    /** @return the Domain attribute, without a leading dot */
    public Optional<String> domain() {
        return Optional.ofNullable(domain);
    }

    /** @return the Path attribute */
    public Optional<String> path() {
        return Optional.ofNullable(path);
    }

    /** @return the Max-Age attribute, whole seconds */
    public Optional<Duration> maxAge() {
        return Optional.ofNullable(maxAge);
    }

    /** @return the Expires attribute, whole seconds */
    public Optional<Instant> expires() {
        return Optional.ofNullable(expires);
    }

    /** @return whether the Secure attribute is set */
    public boolean secure() {
        return secure;
    }

    /** @return whether the HttpOnly attribute is set */
    public boolean httpOnly() {
        return httpOnly;
    }

    /** @return the SameSite attribute */
    public Optional<SameSite> sameSite() {
        return Optional.ofNullable(sameSite);
    }

    /** @return whether the Partitioned attribute (CHIPS) is set */
    public boolean partitioned() {
        return partitioned;
    }

    /** @return the Set-Cookie field value */
    @Override
    public String toString() {
        return fieldValue;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SetCookie that && fieldValue.equals(that.fieldValue);
    }

    @Override
    public int hashCode() {
        return fieldValue.hashCode();
    }

    /** Builds a {@link SetCookie}; each setter validates its argument, {@link #build()} the combination. */
    public static final class Builder {
        private final String name;
        private final String value;
        private String domain;
        private String path;
        private Duration maxAge;
        private Instant expires;
        private boolean secure;
        private boolean httpOnly;
        private SameSite sameSite;
        private boolean partitioned;

        private Builder(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (!HttpChars.isToken(name)) {
                throw new IllegalArgumentException("invalid cookie name " + HttpChars.quote(name)
                        + ": a cookie name must be a non-empty token (RFC 6265 §4.1.1)" + offending(name));
            }
            int from = 0;
            int to = value.length();
            if (to >= 2 && value.charAt(0) == '"' && value.charAt(to - 1) == '"') {
                from = 1;
                to--;
            }
            for (int i = from; i < to; i++) {
                if (!isCookieOctet(value.charAt(i))) {
                    throw new IllegalArgumentException("invalid character " + describe(value.charAt(i))
                            + " in the value of cookie '" + name + "': " + HttpChars.quote(value)
                            + "; only visible ASCII except '\"', ',', ';' and '\\' is allowed (RFC 6265 §4.1.1),"
                            + " encode the value (e.g. Base64url) first");
                }
            }
            this.name = name;
            this.value = value;
        }

        /**
         * @param domain the host (and its subdomains) to send the cookie to; a leading dot is dropped
         * @return this
         * @throws IllegalArgumentException if it is not a host name
         */
        public Builder domain(String domain) {
            String d = domain.startsWith(".") ? domain.substring(1) : domain;
            if (!isHostName(d)) {
                throw new IllegalArgumentException("invalid cookie Domain " + HttpChars.quote(domain)
                        + ": expected a host name of letters, digits and '-' in dot-separated labels"
                        + " (RFC 6265 §4.1.2.3)");
            }
            this.domain = d;
            return this;
        }

        /**
         * @param path the path prefix to send the cookie with, starting with {@code /}
         * @return this
         * @throws IllegalArgumentException if it does not start with {@code /} or has a control character or {@code ;}
         */
        public Builder path(String path) {
            if (path.isEmpty() || path.charAt(0) != '/') {
                throw new IllegalArgumentException(
                        "invalid cookie Path " + HttpChars.quote(path) + ": it must start with '/' (RFC 6265 §5.1.4)");
            }
            for (int i = 0; i < path.length(); i++) {
                char c = path.charAt(i);
                if (c < 0x20 || c >= 0x7F || c == ';') {
                    throw new IllegalArgumentException("invalid character " + describe(c) + " in cookie Path "
                            + HttpChars.quote(path) + " (RFC 6265 §4.1.1: no control character or ';')");
                }
            }
            this.path = path;
            return this;
        }

        /**
         * @param maxAge how long the cookie lives, truncated to seconds; zero deletes it
         * @return this
         * @throws IllegalArgumentException if negative
         */
        public Builder maxAge(Duration maxAge) {
            if (maxAge.isNegative()) {
                throw new IllegalArgumentException("negative cookie Max-Age: " + maxAge);
            }
            this.maxAge = Duration.ofSeconds(maxAge.toSeconds());
            return this;
        }

        /**
         * @param expires when the cookie expires, truncated to seconds (Max-Age wins where both are set)
         * @return this
         * @throws IllegalArgumentException if outside the years 1601 to 9999
         */
        public Builder expires(Instant expires) {
            long seconds = expires.getEpochSecond();
            if (seconds < MIN_EXPIRES || seconds > MAX_EXPIRES) {
                throw new IllegalArgumentException(
                        "cookie Expires out of range: " + expires + "; expected the years 1601 to 9999");
            }
            this.expires = Instant.ofEpochSecond(seconds);
            return this;
        }

        /**
         * @param secure whether the cookie is only sent over secure connections
         * @return this
         */
        public Builder secure(boolean secure) {
            this.secure = secure;
            return this;
        }

        /**
         * @param httpOnly whether scripts cannot read the cookie
         * @return this
         */
        public Builder httpOnly(boolean httpOnly) {
            this.httpOnly = httpOnly;
            return this;
        }

        /**
         * @param sameSite when the cookie goes with cross-site requests; {@link SameSite#NONE} requires Secure
         * @return this
         */
        public Builder sameSite(SameSite sameSite) {
            this.sameSite = Objects.requireNonNull(sameSite, "sameSite");
            return this;
        }

        /**
         * @param partitioned whether the cookie is kept per top-level site (CHIPS); requires Secure
         * @return this
         */
        public Builder partitioned(boolean partitioned) {
            this.partitioned = partitioned;
            return this;
        }

        /**
         * @return the cookie
         * @throws IllegalArgumentException if attributes contradict each other or the name's prefix
         */
        public SetCookie build() {
            if (sameSite == SameSite.NONE && !secure) {
                throw new IllegalArgumentException(
                        "cookie '" + name + "' has SameSite=None without Secure: browsers reject it; set secure(true)");
            }
            if (partitioned && !secure) {
                throw new IllegalArgumentException(
                        "cookie '" + name + "' is Partitioned without Secure: browsers reject it; set secure(true)");
            }
            if (name.regionMatches(true, 0, "__Secure-", 0, 9) && !secure) {
                throw new IllegalArgumentException(
                        "cookie '" + name + "' has the __Secure- prefix and so requires Secure; set secure(true)");
            }
            if (name.regionMatches(true, 0, "__Host-", 0, 7) && (!secure || !"/".equals(path) || domain != null)) {
                throw new IllegalArgumentException(
                        "cookie '" + name + "' has the __Host- prefix and so requires Secure, Path=/ and no Domain");
            }
            return new SetCookie(this);
        }

        private static boolean isCookieOctet(char c) {
            return c >= 0x21 && c <= 0x7E && c != '"' && c != ',' && c != ';' && c != '\\';
        }

        private static boolean isHostName(String d) {
            if (d.isEmpty() || d.length() > 253) {
                return false;
            }
            int label = 0;
            for (int i = 0; i <= d.length(); i++) {
                char c = i < d.length() ? d.charAt(i) : '.';
                if (c == '.') {
                    if (label == 0 || label > 63 || d.charAt(i - 1) == '-' || d.charAt(i - label) == '-') {
                        return false;
                    }
                    label = 0;
                } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-') {
                    label++;
                } else {
                    return false;
                }
            }
            return true;
        }

        private static String offending(String s) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c >= 0x80 || !HttpChars.isTChar(c)) {
                    return "; " + describe(c) + " is not allowed";
                }
            }
            return "";
        }

        private static String describe(char c) {
            return c < 0x80 ? HttpChars.describe(c) : String.format("U+%04X", (int) c);
        }
    }
}
