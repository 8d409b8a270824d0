package dev.quarry.cli;

import dev.quarry.client.HttpClient;
import dev.quarry.client.HttpProxy;
import dev.quarry.client.HttpRequest;
import dev.quarry.client.HttpResponse;
import dev.quarry.client.RequestBody;
import dev.quarry.http.HttpField;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * {@code quarry get URL}: one request with Quarry's client, curl-like, for trying a server by hand. The content goes to
 * standard output (or {@code --output FILE}); {@code --verbose} shows the exchange on standard error.
 */
final class GetCommand {
    static final String USAGE = """
            Usage: quarry get [options] URL

            Sends one request with Quarry's HTTP client and writes the response content to standard
            output. Redirects are followed (at most 8); the exit status is 0 for a 2xx or 3xx response,
            1 otherwise.

            Options:
              -v, --verbose           show the request and response heads on standard error
              -o, --output FILE       write the content to FILE instead of standard output
              -X, --method METHOD     the method (default GET; POST with --data)
              -d, --data TEXT|@FILE   send TEXT, or the content of FILE, as the request body
              -H, --header 'N: V'     add a header field (repeatable)
              -k, --insecure          accept any server certificate (for development certificates)
              --compressed            ask for gzip and decode it
              --http2                 speak HTTP/2: h2c by prior knowledge for http (the server must
                                      speak it on that port), h2 by ALPN for https (else HTTP/1.1)
              --no-follow             do not follow redirects
              --max-time DURATION     fail if the whole exchange takes longer (e.g. 10s, 500ms)
              --idle-timeout DURATION fail if no byte of the response (nor of the request while it is
                                      sent) moves for this long (default 30s)
              --unix PATH             connect to a Unix-domain socket (e.g. quarry serve --unix PATH)
              -x, --proxy [USER:PASSWORD@]HOST:PORT
                                      go through an HTTP proxy: CONNECT tunnels for https,
                                      absolute-form requests for http
              -h, --help              this help

            Without --http2, requests use HTTP/1.1 (over TLS for https).
            """;

    static final Set<String> OPTIONS =
            Set.of("output", "method", "data", "header", "max-time", "idle-timeout", "unix", "proxy");
    static final Set<String> FLAGS = Set.of("verbose", "insecure", "compressed", "no-follow", "http2");
    private static final Map<String, String> SHORT = Map.of(
            "-v", "--verbose",
            "-o", "--output",
            "-X", "--method",
            "-d", "--data",
            "-H", "--header",
            "-k", "--insecure",
            "-x", "--proxy",
            "-L", "");

    private GetCommand() {}

    /** Turns curl's short options into the long ones ({@code -L} is the default here, so dropped). */
    static List<String> expandShortOptions(List<String> args) {
        List<String> expanded = new ArrayList<>();
        for (String arg : args) {
            String replacement = SHORT.get(arg);
            if (replacement == null) {
                expanded.add(arg);
            } else if (!replacement.isEmpty()) {
                expanded.add(replacement);
            }
        }
        return expanded;
    }

    /** @return the exit status: 0 for a 2xx or 3xx response, 1 otherwise */
    static int run(Options options, PrintStream out, PrintStream err) throws IOException, InterruptedException {
        if (options.positional().size() != 1) {
            throw new Options.UsageException("give exactly one URL, e.g. quarry get http://localhost:8080/");
        }
        URI uri;
        try {
            uri = URI.create(options.positional().get(0));
        } catch (IllegalArgumentException x) {
            throw new Options.UsageException("not a URL: " + x.getMessage());
        }
        HttpClient.Builder builder = HttpClient.builder()
                .name("quarry-get")
                .contentDecoding(options.flag("compressed"))
                .http2(options.flag("http2"))
                .maxRedirects(options.flag("no-follow") ? 0 : 8);
        if (options.flag("insecure")) {
            builder.sslContext(trustingEverything()).verifyHostnames(false);
        }
        options.string("unix").ifPresent(path -> builder.unixDomainSocket(Path.of(path)));
        if (options.string("proxy").isPresent()) {
            if (options.string("unix").isPresent()) {
                throw new Options.UsageException("--proxy and --unix exclude each other");
            }
            builder.proxy(proxy(options.string("proxy").get()));
        }
        try (HttpClient client = builder.build()) {
            Duration maxTime =
                    options.string("max-time").isPresent() ? options.duration("max-time", Duration.ZERO) : null;
            HttpRequest request = request(uri, options, maxTime);
            if (options.flag("verbose")) {
                printRequest(request, options.flag("http2"), err);
            }
            HttpResponse response = client.send(request);
            if (options.flag("verbose")) {
                printResponse(response, err);
            }
            if (options.string("output").isPresent()) {
                response.toFile(Path.of(options.string("output").get()));
            } else {
                try (OutputStream body = out) {
                    response.transferTo(body);
                }
            }
            return response.status() < 400 ? 0 : 1;
        }
    }

    /**
     * @param value {@code [http://][USER:PASSWORD@]HOST:PORT}, as curl's {@code -x} takes it ({@code [::1]:PORT} for
     *     an IPv6 literal)
     * @return the proxy
     */
    static HttpProxy proxy(String value) {
        String rest = value.regionMatches(true, 0, "http://", 0, 7) ? value.substring(7) : value;
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        String credentials = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            credentials = rest.substring(0, at);
            rest = rest.substring(at + 1);
        }
        int colon = rest.lastIndexOf(':');
        if (colon <= 0 || colon == rest.length() - 1 || (rest.startsWith("[") && rest.charAt(colon - 1) != ']')) {
            throw new Options.UsageException("--proxy needs HOST:PORT, e.g. 127.0.0.1:3128, not '" + value + "'");
        }
        String host = rest.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        HttpProxy proxy;
        try {
            proxy = HttpProxy.of(host, Integer.parseInt(rest.substring(colon + 1)));
        } catch (IllegalArgumentException x) {
            throw new Options.UsageException("invalid --proxy '" + value + "': " + x.getMessage());
        }
        if (credentials != null) {
            int separator = credentials.indexOf(':');
            if (separator < 0) {
                throw new Options.UsageException("--proxy credentials are USER:PASSWORD, in '" + value + "'");
            }
            proxy = proxy.basicAuth(credentials.substring(0, separator), credentials.substring(separator + 1));
        }
        return proxy;
    }

    /**
     * The request of {@code --method}, {@code --data} and {@code --header} (those the command takes).
     *
     * @param timeout the whole exchange's bound, or null for none
     */
    static HttpRequest request(URI uri, Options options, Duration timeout) {
        HttpRequest.Builder request;
        try {
            request = HttpRequest.newBuilder(uri);
        } catch (IllegalArgumentException x) {
            throw new Options.UsageException(x.getMessage());
        }
        RequestBody body = RequestBody.empty();
        String method = "GET";
        if (options.string("data").isPresent()) {
            String data = options.string("data").get();
            body = data.startsWith("@") ? RequestBody.ofFile(Path.of(data.substring(1))) : RequestBody.of(data);
            method = "POST";
            if (data.startsWith("@") && !Files.isReadable(Path.of(data.substring(1)))) {
                throw new Options.UsageException("--data " + data + ": cannot read " + data.substring(1));
            }
        }
        method = options.string("method").orElse(method);
        try {
            request.method(method, body);
            for (String header : options.all("header")) {
                int colon = header.indexOf(':');
                if (colon <= 0) {
                    throw new Options.UsageException("--header must be 'Name: value', not '" + header + "'");
                }
                request.header(
                        header.substring(0, colon).strip(),
                        header.substring(colon + 1).strip());
            }
            options.string("max-time")
                    .ifPresent(ignored -> request.timeout(options.duration("max-time", Duration.ZERO)));
            options.string("idle-timeout")
                    .ifPresent(ignored -> request.idleTimeout(options.duration("idle-timeout", Duration.ZERO)));
        } catch (IllegalArgumentException x) {
            throw new Options.UsageException(x.getMessage());
        }
        return request.build();
    }

    private static void printRequest(HttpRequest request, boolean http2, PrintStream err) {
        URI uri = request.uri();
        String target = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        // With --http2 over https, the server may still choose HTTP/1.1: the response line says what was spoken.
        err.println("> " + request.method() + " " + target + (http2 ? " HTTP/2" : " HTTP/1.1"));
        err.println("> Host: " + request.origin().authority());
        for (HttpField field : request.headers()) {
            err.println("> " + field.name() + ": " + field.value());
        }
        err.println(">");
    }

    private static void printResponse(HttpResponse response, PrintStream err) {
        // After redirects, the response answers the last request: say which.
        err.println(
                "* " + response.request().method() + " " + response.request().uri());
        err.println("< " + response.version() + " " + response.status() + " " + response.reason());
        for (HttpField field : response.headers()) {
            err.println("< " + field.name() + ": " + field.value());
        }
        err.println("<");
    }

    /** For {@code --insecure}: development certificates are self-signed, and the user said so. */
    static SSLContext trustingEverything() {
        TrustManager everything = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {everything}, null);
            return context;
        } catch (GeneralSecurityException x) {
            throw new IllegalStateException("cannot make a TLS context", x);
        }
    }
}
