package dev.quarry.http;

import dev.quarry.http.internal.HttpChars;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed request target (RFC 9112 §3.2) in one of its four forms, with its path decoded and normalised by
 * {@link UriPath}.
 *
 * <ul>
 *   <li>origin-form {@code /path?query}: any method but CONNECT;
 *   <li>absolute-form {@code scheme://authority/path?query}: any method but CONNECT (requests to proxies, and clients
 *       that send it to origin servers); the authority has no user information, and an http(s) host is not empty;
 *   <li>authority-form {@code host:port}: CONNECT only, and CONNECT takes only this form;
 *   <li>asterisk-form {@code *}: OPTIONS only.
 * </ul>
 * A target that matches no form allowed for the method, or that carries a fragment, is a 400 naming the problem.
 *
 * <p>Thread-safety: immutable. Cost: O(n) parse; an origin-form target without {@code %} or dot segments allocates
 * only this object and the path/query substrings.
 *
 * @param form the form of the target
 * @param target the target as received
 * @param scheme the scheme in lower case, absolute-form only
 * @param authority the host and port, absolute-form and authority-form only
 * @param rawPath the path as received: starts with {@code /} for origin- and absolute-form (an empty absolute path is
 *     {@code /}), {@code *} for asterisk-form, empty for authority-form
 * @param path the decoded, normalised path, same conventions as {@code rawPath}
 * @param query the raw query after {@code ?}, not decoded (see {@link QueryParameters})
 */
public record HttpUri(
        Form form,
        String target,
        Optional<String> scheme,
        Optional<HostPort> authority,
        String rawPath,
        String path,
        Optional<String> query) {

    /** The four forms of a request target (RFC 9112 §3.2.1-3.2.4). */
    public enum Form {
        ORIGIN,
        ABSOLUTE,
        AUTHORITY,
        ASTERISK
    }

    /** Parses a target under {@link UriCompliance#STRICT}. */
    public static HttpUri parse(String method, String target) {
        return parse(method, target, UriCompliance.STRICT);
    }

    /**
     * Parses a request target.
     *
     * @param method the request method, which decides the allowed forms
     * @param target the request target as received
     * @param compliance the path ambiguities to accept
     * @return the parsed target
     * @throws BadMessageException 400 naming the problem
     */
    public static HttpUri parse(String method, String target, UriCompliance compliance) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(target, "target");
        if (target.isEmpty()) {
            throw new BadMessageException("empty request target");
        }
        if (target.indexOf('#') >= 0) {
            throw new BadMessageException("fragment in request target: " + HttpChars.quote(target));
        }
        if (HttpMethod.CONNECT.is(method)) {
            if (target.charAt(0) == '/' || target.contains("/") || target.contains("?")) {
                throw new BadMessageException(
                        "CONNECT needs an authority-form target host:port, not " + HttpChars.quote(target));
            }
            HostPort authority = HostPort.parseWithPort(target);
            return new HttpUri(
                    Form.AUTHORITY, target, Optional.empty(), Optional.of(authority), "", "", Optional.empty());
        }
        char first = target.charAt(0);
        if (first == '*') {
            if (target.length() != 1) {
                throw new BadMessageException("invalid request target: " + HttpChars.quote(target));
            }
            if (!HttpMethod.OPTIONS.is(method)) {
                throw new BadMessageException("asterisk-form target * is only for OPTIONS, not " + method);
            }
            return new HttpUri(Form.ASTERISK, target, Optional.empty(), Optional.empty(), "*", "*", Optional.empty());
        }
        if (first == '/') {
            int question = target.indexOf('?');
            String rawPath = question < 0 ? target : target.substring(0, question);
            Optional<String> query = query(target, question);
            return new HttpUri(
                    Form.ORIGIN,
                    target,
                    Optional.empty(),
                    Optional.empty(),
                    rawPath,
                    UriPath.decode(rawPath, compliance),
                    query);
        }
        return parseAbsolute(target, compliance);
    }

    private static HttpUri parseAbsolute(String target, UriCompliance compliance) {
        int colon = target.indexOf(':');
        if (colon <= 0 || !isScheme(target, colon)) {
            throw new BadMessageException(
                    "request target is neither origin-form nor absolute-form: " + HttpChars.quote(target));
        }
        if (!target.startsWith("//", colon + 1)) {
            throw new BadMessageException("absolute-form target without authority: " + HttpChars.quote(target));
        }
        String scheme = target.substring(0, colon).toLowerCase(Locale.ROOT);
        int authorityStart = colon + 3;
        int authorityEnd = authorityStart;
        while (authorityEnd < target.length()
                && target.charAt(authorityEnd) != '/'
                && target.charAt(authorityEnd) != '?') {
            authorityEnd++;
        }
        HostPort authority = HostPort.parse(target.substring(authorityStart, authorityEnd));
        if (authority.host().isEmpty() && (scheme.equals("http") || scheme.equals("https"))) {
            // RFC 9110 §4.2.1: a recipient MUST reject an http URI with an empty host as invalid.
            throw new BadMessageException("empty host in " + scheme + " URI: " + HttpChars.quote(target));
        }
        int question = target.indexOf('?', authorityEnd);
        int pathEnd = question < 0 ? target.length() : question;
        String rawPath = authorityEnd == pathEnd ? "/" : target.substring(authorityEnd, pathEnd);
        Optional<String> query = query(target, question);
        return new HttpUri(
                Form.ABSOLUTE,
                target,
                Optional.of(scheme),
                Optional.of(authority),
                rawPath,
                UriPath.decode(rawPath, compliance),
                query);
    }

    // query = *( pchar / "/" / "?" ) (RFC 3986 §3.4): checked only for characters that are never part of a URI, since
    // HTTP/2 can carry octets that the HTTP/1 parser would have rejected. The query is decoded by QueryParameters.
    private static Optional<String> query(String target, int question) {
        if (question < 0) {
            return Optional.empty();
        }
        for (int i = question + 1; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c >= 0x7F) {
                throw new BadMessageException(
                        "invalid character " + (c > 0xFF ? String.format("U+%04X", (int) c) : HttpChars.describe(c))
                                + " in query: " + HttpChars.quote(target));
            }
        }
        return Optional.of(target.substring(question + 1));
    }

    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 §3.1)
    private static boolean isScheme(String target, int end) {
        for (int i = 0; i < end; i++) {
            char c = target.charAt(i);
            boolean alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            if (!alpha && (i == 0 || !((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))) {
                return false;
            }
        }
        return true;
    }
}
