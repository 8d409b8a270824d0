package dev.quarry.client;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpHeader;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Following redirects (RFC 9110 §15.4), as browsers, Jetty's and the JDK's clients do it:
 *
 * <ul>
 *   <li>301, 302, 303, 307 and 308 with a {@code Location} are followed; the location is resolved against the URI of
 *       the request that got it.
 *   <li>303 turns every method but HEAD into a GET without content; 301 and 302 turn a POST into a GET (what every
 *       user agent does, which §15.4.2 and §15.4.3 allow); 307, 308, and 301/302 of other methods repeat the method
 *       and its content, and are not followed when the content cannot be sent twice (the application gets the
 *       redirect response).
 *   <li>Never from {@code https} to {@code http} (the request was meant to stay encrypted); the application gets the
 *       redirect response.
 *   <li>Credentials ({@code Authorization}, {@code Cookie}, {@code Proxy-Authorization}) are sent on only to the same
 *       origin.
 *   <li>At most {@code maxRedirects} in a row; one more fails the request with an {@link IOException} naming the
 *       count and the last location.
 * </ul>
 *
 * <p>The content of a followed redirect response is read and dropped if it is small (so that its connection is
 * reused), else its connection is closed.
 */
final class Redirects {
    private static final Set<String> CREDENTIALS = Set.of("authorization", "cookie", "proxy-authorization");
    private static final Set<String> CONTENT_FIELDS =
            Set.of("content-type", "content-encoding", "content-language", "content-location");
    /** Redirect content up to this size is read and dropped; beyond, the connection is closed instead. */
    private static final long DRAIN_LIMIT = 64 * 1024;

    private Redirects() {}

    /**
     * @param response a response the application would otherwise get
     * @param followed how many redirects were followed before this response
     * @param max the most redirects to follow
     * @param clientFollows whether the client follows redirects of requests that do not say
     * @return the request that follows the redirect, or empty if the response is the one to deliver
     * @throws IOException if the response is a redirect to follow beyond {@code max}, or its location is invalid
     */
    static Optional<HttpRequest> next(HttpResponse response, int followed, int max, boolean clientFollows)
            throws IOException {
        HttpRequest request = response.request();
        int status = response.status();
        if (!request.followsRedirects(clientFollows) || !isRedirect(status)) {
            return Optional.empty();
        }
        Optional<String> location = response.headers().get(HttpHeader.LOCATION);
        if (location.isEmpty()) {
            return Optional.empty();
        }
        URI target = resolve(request.uri(), location.get());
        if (request.uri().getScheme().equalsIgnoreCase("https")
                && !target.getScheme().equalsIgnoreCase("https")) {
            return Optional.empty();
        }
        String method = request.method();
        boolean toGet = (status == 303 && !method.equals("HEAD"))
                || ((status == 301 || status == 302) && method.equals("POST"));
        RequestBody body = toGet ? RequestBody.empty() : request.body();
        if (!toGet && body.length().orElse(-1) != 0 && !body.isReplayable()) {
            return Optional.empty();
        }
        if (followed >= max) {
            throw new IOException("too many redirects: " + followed + " followed, the last to " + request.uri()
                    + ", which redirects to " + target + " (the limit is " + max + ")");
        }
        HttpRequest.Builder next = HttpRequest.newBuilder(target).method(toGet ? "GET" : method, body);
        boolean sameOrigin = Origin.of(target).equals(request.origin());
        for (HttpField field : request.headers()) {
            String name = field.name().toLowerCase(Locale.ROOT);
            if ((!sameOrigin && CREDENTIALS.contains(name)) || (toGet && CONTENT_FIELDS.contains(name))) {
                continue;
            }
            next.header(field.name(), field.value());
        }
        request.timeout().ifPresent(next::timeout);
        request.idleTimeout().ifPresent(next::idleTimeout);
        return Optional.of(next.build());
    }

    private static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    private static URI resolve(URI base, String location) throws IOException {
        try {
            URI resolved = base.resolve(new URI(location.strip()));
            String text = resolved.toString();
            int fragment = text.indexOf('#');
            // A fragment is the user agent's business (RFC 9110 §10.2.2), never part of a request.
            URI target = fragment < 0 ? resolved : new URI(text.substring(0, fragment));
            Origin.of(target); // an absolute http(s) URI with a host, or the redirect is invalid
            return target;
        } catch (URISyntaxException | IllegalArgumentException x) {
            throw new IOException(
                    "invalid redirect location '" + location + "' from " + base + ": " + x.getMessage(), x);
        }
    }

    /** Drops the content of a redirect response: read if small, so that the connection is reused; else closed. */
    static void discard(HttpResponse response) {
        OptionalLong length = response.contentLength();
        if (length.isPresent() && length.getAsLong() <= DRAIN_LIMIT) {
            try (InputStream body = response.body()) {
                body.skip(Long.MAX_VALUE);
                while (body.read() >= 0) {
                    // skip() may stop early
                }
            } catch (IOException x) {
                // The connection closes; the redirect is followed on another.
            }
        } else {
            response.close();
        }
    }
}
