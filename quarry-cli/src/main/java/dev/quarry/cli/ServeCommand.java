package dev.quarry.cli;

import dev.quarry.server.Server;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.ServerStatus;
import dev.quarry.server.StatusContributor;
import dev.quarry.server.handlers.StaticFiles;
import dev.quarry.server.handlers.StaticFilesBuilder;
import dev.quarry.server.handlers.Throttle;
import dev.quarry.server.handlers.ThrottleHandler;
import dev.quarry.server.handlers.ThrottleLimits;
import dev.quarry.server.handlers.ThrottleStatistics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code quarry serve [DIR]}: with DIR, serves that directory; without, the bundled demo site (a hello endpoint, an
 * echo, a throttled 200 KiB download and the status page). Throttling, the status page and JMX are options.
 */
final class ServeCommand {
    static final String USAGE = """
            Usage: quarry serve [DIR] [options]

            Without DIR, serves the demo site on port 8080: open http://localhost:8080/ to try everything.
            With DIR, serves the files under DIR: index.html, content types, ETag and Last-Modified with
            conditional requests (304), byte ranges (206, 416), precompressed .gz/.br siblings, zero-copy sending.
            Hidden files and paths that leave DIR are never served.

            Where to listen:
              --port N                TCP port (default 8080; 0 picks a free one)
              --host HOST             address to bind (default: all interfaces)
              --unix PATH             a Unix-domain socket instead of TCP (curl --unix-socket PATH http://x/)
              --h2c on|off|only       HTTP/2 cleartext beside HTTP/1.1 (on, default), not at all, or alone
              --proxy-protocol        accept a PROXY protocol v1/v2 header from the proxy in front
                                      (haproxy send-proxy-v2, nginx proxy_protocol) on every listener
                                      (only where nothing else can connect): its client address is
                                      the one requests, logs and --client-rate see

            Files:
              --listing               list directories without an index.html (default: 403)
              --mime EXT=TYPE[,...]   the Content-Type of an extension, e.g. --mime ts=text/plain (repeatable);
                                      source, config and README-like files are text/plain; charset=utf-8 already
              --cache-control VALUE   the Cache-Control of files and 304s, e.g. "public, max-age=3600" or
                                      no-cache (default: none; browsers then guess from Last-Modified)
              --compress, --no-compress   gzip text, JSON, JavaScript, XML, SVG and wasm of 1 KiB to 8 MiB for
                                      clients that accept it, cached (default on); .gz/.br siblings still win;
                                      no brotli or zstd on the fly (the JDK has no encoder for them)

            Bandwidth limits (all apply together; 0 means unlimited):
              --rate RATE             for the whole server
              --client-rate RATE      per client address
              --request-rate RATE     per request (the demo uses 20KiB/s for /download/; 0 lifts it)
              --burst SIZE            how much each limited bucket lets through at once, above its rate
                                      (default: a tenth of a second of the rate, at least 32KiB)
                Rates and sizes are in bytes (never bits), "/s" optional: k = 1000, M = 1000000,
                G = 10^9; Ki = 1024, Mi = 1024^2, Gi = 1024^3; e.g. 20k, 512KiB/s, 1Mi, 2.5MB/s.
              --max-connections-per-client N   requests in progress per client; beyond, 429 with Retry-After
              --allow CIDR[,CIDR...]  clients never throttled (e.g. 127.0.0.1,10.0.0.0/8)
              --deny CIDR[,CIDR...]   clients refused with 403

            Observability:
              --status                the status page at /quarry/status and /quarry/status.json, and Prometheus
                                      metrics at /quarry/metrics (always on for the demo)
              --jmx on|off            MBeans for the thread pool, connectors and throttle limits (default on)
              --access-log FILE|-     log every request to FILE (appended), or to standard output with -
              --access-log-format combined|json  NCSA combined (default) or JSON lines

            Threads and timeouts:
              --virtual-threads on|off  blocking handlers on virtual threads (default on)
              --threads N             maximum platform threads (default: 8 per core, at least 16)
              --selectors N           selector threads (default: 1 per 4 cores)
            """ + Main.CONNECTION_AND_TLS_OPTIONS + """
              --idle-timeout SECONDS  close connections idle this long (default 30; also 500ms, 5m)
              -h, --help              this help
            """;

    /** The server's options ({@link Main#SERVER_OPTIONS}, shared with {@code plaintext}) and the file server's. */
    static final Set<String> OPTIONS = Stream.concat(
                    Main.SERVER_OPTIONS.stream(),
                    Stream.of(
                            "rate",
                            "client-rate",
                            "request-rate",
                            "max-connections-per-client",
                            "allow",
                            "deny",
                            "jmx",
                            "mime",
                            "cache-control",
                            "burst"))
            .collect(Collectors.toUnmodifiableSet());

    static final Set<String> FLAGS = Stream.concat(
                    Main.SERVER_FLAGS.stream(), Stream.of("listing", "status", "compress", "no-compress"))
            .collect(Collectors.toUnmodifiableSet());

    private static final String DEMO_DOWNLOAD_RATE = "20KiB/s";

    private ServeCommand() {}

    static Server build(Options options) throws IOException {
        List<String> positional = options.positional();
        if (positional.size() > 1) {
            throw new Options.UsageException("serve takes one directory, not " + positional);
        }
        ServerBuilder builder = Main.serverBuilder(options);
        builder.jmx(options.onOff("jmx", true));
        boolean demo = positional.isEmpty();
        Path root;
        if (demo) {
            root = DemoSite.extract(options.integer("port", 8080, 0, 65535));
        } else {
            root = Path.of(positional.get(0)).toAbsolutePath().normalize();
            if (!Files.isDirectory(root)) {
                throw new Options.UsageException("not a directory: " + root);
            }
        }
        StaticFiles files = files(options, root);
        ThrottleLimits limits = withBurst(options, limits(options, demo));
        if (!demo && options.string("burst").isPresent() && !hasRate(limits)) {
            throw new Options.UsageException(
                    "--burst sets the burst of --rate, --client-rate and --request-rate: give one of them too");
        }
        // Numbered per server, not per JVM: a second server in one JVM (tests) still calls its first "throttle".
        AtomicInteger throttles = new AtomicInteger();
        if (demo) {
            builder.route("GET /hello/{name}", (req, res) -> res.send("Hello " + req.pathParam("name") + "\n"));
            builder.route("GET /hello", (req, res) -> res.send("Hello world\n"));
            // What the server takes the client's address to be: behind a proxy, it shows whether the PROXY protocol
            // works (the client's own address) or not (the proxy's).
            builder.route("GET /whoami", (req, res) -> res.send(address(req.remoteAddress()) + "\n"));
            EchoHandler echo = new EchoHandler();
            builder.route("POST /echo", echo);
            builder.route("PUT /echo", echo); // curl -T uploads with PUT
            // --request-rate replaces the demo's rate for /download/, 0 (unlimited) included.
            ThrottleLimits download = options.string("request-rate").isPresent()
                    ? limits
                    : withBurst(
                            options,
                            limits.toBuilder()
                                    .requestRate(ThrottleLimits.parseRate(DEMO_DOWNLOAD_RATE))
                                    .build());
            Throttle throttle = throttle(builder, download, throttles);
            // A route ending in * gives StaticFiles the rest of the path: this instance is rooted at download/.
            StaticFiles downloads =
                    StaticFiles.builder(root.resolve("download")).build();
            builder.route("GET /download/*", new ThrottleHandler(throttle, downloads));
            builder.route(
                    "/*",
                    limits.equals(ThrottleLimits.NONE)
                            ? files
                            : new ThrottleHandler(throttle(builder, limits, throttles), files));
            builder.statusPage("/quarry/status").metrics("/quarry/metrics");
        } else {
            if (limits.equals(ThrottleLimits.NONE)) {
                builder.route("/*", files);
            } else {
                builder.route("/*", new ThrottleHandler(throttle(builder, limits, throttles), files));
            }
            if (options.flag("status")) {
                builder.statusPage("/quarry/status").metrics("/quarry/metrics");
            }
        }
        return builder.build();
    }

    /** @return {@code 127.0.0.1:54321}, {@code [::1]:54321}, or a Unix socket's path ({@code unix:} if unnamed) */
    static String address(java.net.SocketAddress address) {
        if (address instanceof java.net.InetSocketAddress inet) {
            String host = inet.getAddress().getHostAddress();
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        if (address instanceof java.net.UnixDomainSocketAddress unix) {
            return "unix:" + unix.getPath();
        }
        return String.valueOf(address);
    }

    /**
     * What {@code serve} serves, and how, for the line logged once the server started, e.g.
     * {@code Serving /srv/www over http/1.1 and h2c} or {@code Serving the demo site over http/1.1}.
     */
    static String served(Options options) {
        List<String> positional = options.positional();
        String what = positional.isEmpty()
                ? "the demo site"
                : Path.of(positional.get(0)).toAbsolutePath().normalize().toString();
        String protocols = switch (options.string("h2c").orElse("on").trim().toLowerCase(java.util.Locale.ROOT)) {
            case "off" -> "http/1.1";
            case "only" -> "h2c only (HTTP/2 by prior knowledge)";
            default -> "http/1.1 and h2c";
        };
        String https = options.string("https-port").isPresent() ? " and https (h2, http/1.1)" : "";
        return "Serving " + what + " over " + protocols + https;
    }

    /** The file server, from the options of the Files section. */
    private static StaticFiles files(Options options, Path root) {
        StaticFilesBuilder files = StaticFiles.builder(root)
                .directoryListing(options.flag("listing"))
                .listingOffHint("To list directories, start 'quarry serve' with --listing.");
        if (options.flag("compress") && options.flag("no-compress")) {
            throw new Options.UsageException("--compress and --no-compress contradict each other: give one");
        }
        files.compress(!options.flag("no-compress"));
        if (options.string("cache-control").isPresent()) {
            try {
                files.cacheControl(options.string("cache-control").get());
            } catch (IllegalArgumentException x) {
                throw new Options.UsageException("--cache-control: " + x.getMessage());
            }
        }
        for (String mapping : options.list("mime")) {
            int equals = mapping.indexOf('=');
            if (equals <= 0) {
                throw new Options.UsageException("--mime takes EXT=TYPE, e.g. ts=text/plain, not '" + mapping + "'");
            }
            String extension = mapping.substring(0, equals).strip();
            try {
                files.mimeType(
                        extension.startsWith(".") ? extension.substring(1) : extension, mapping.substring(equals + 1));
            } catch (IllegalArgumentException x) {
                throw new Options.UsageException("--mime " + mapping + ": " + x.getMessage());
            }
        }
        return files.build();
    }

    private static ThrottleLimits limits(Options options, boolean demo) {
        ThrottleLimits.Builder limits = ThrottleLimits.builder();
        options.string("rate").ifPresent(rate -> limits.globalRate(rate(rate, "rate")));
        options.string("client-rate").ifPresent(rate -> limits.clientRate(rate(rate, "client-rate")));
        options.string("request-rate").ifPresent(rate -> limits.requestRate(rate(rate, "request-rate")));
        if (options.string("max-connections-per-client").isPresent()) {
            limits.maxRequestsPerClient(options.integer("max-connections-per-client", 0, 1, 1_000_000));
        }
        options.string("allow").ifPresent(allow -> limits.allow(addresses(allow, "allow")));
        options.string("deny").ifPresent(deny -> limits.deny(addresses(deny, "deny")));
        return limits.build();
    }

    /** The limits with --burst, if given, as the capacity of every bucket that has a rate. */
    private static ThrottleLimits withBurst(Options options, ThrottleLimits limits) {
        if (options.string("burst").isEmpty()) {
            return limits;
        }
        String value = options.string("burst").get();
        try {
            long burst = ThrottleLimits.parseSize(value);
            ThrottleLimits.Builder builder = limits.toBuilder();
            if (limits.globalRate() > 0) {
                builder.globalBurst(burst);
            }
            if (limits.clientRate() > 0) {
                builder.clientBurst(burst);
            }
            if (limits.requestRate() > 0) {
                builder.requestBurst(burst);
            }
            return builder.build();
        } catch (IllegalArgumentException x) {
            throw new Options.UsageException("--burst: " + x.getMessage());
        }
    }

    private static boolean hasRate(ThrottleLimits limits) {
        return limits.globalRate() > 0 || limits.clientRate() > 0 || limits.requestRate() > 0;
    }

    private static long rate(String value, String option) {
        try {
            return ThrottleLimits.parseRate(value);
        } catch (IllegalArgumentException x) {
            throw new Options.UsageException("--" + option + ": " + x.getMessage());
        }
    }

    private static String addresses(String value, String option) {
        try {
            dev.quarry.server.handlers.AddressSet.parse(value);
            return value;
        } catch (IllegalArgumentException x) {
            throw new Options.UsageException("--" + option + ": " + x.getMessage());
        }
    }

    /** A throttle with its MBean and status section registered on the builder. */
    private static Throttle throttle(ServerBuilder builder, ThrottleLimits limits, AtomicInteger throttles) {
        Throttle throttle = Throttle.of(limits);
        builder.manage(throttle); // started and stopped with the server
        int index = throttles.getAndIncrement();
        builder.mbean("type=Throttle,index=" + index, throttle.mxBean());
        builder.statusContributor(new StatusContributor() {
            @Override
            public String statusName() {
                return index == 0 ? "throttle" : "throttle " + index;
            }

            @Override
            public Map<String, Object> status() {
                ThrottleStatistics s = throttle.statistics();
                Map<String, Object> values = new LinkedHashMap<>();
                values.put("active clients", (long) s.activeClients());
                values.put("active requests", (long) s.activeRequests());
                values.put("waiting writes", s.waitingWrites());
                values.put("bytes sent", s.bytesSent());
                values.put("throttled seconds", s.throttledNanos() / 1e9);
                values.put("denied (403)", s.deniedRequests());
                values.put("too many (429)", s.tooManyRequests());
                values.put(ServerStatus.HIGH_WATER_MARKS, Map.of("waiting writes", s.maxWaitingWrites()));
                values.put(ServerStatus.LIMITS, limits(throttle.limits()));
                return values;
            }
        });
        return throttle;
    }

    /** The limits that are set: a summary in words, then the rates as numbers (bytes per second). */
    private static Map<String, Object> limits(ThrottleLimits limits) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("summary", describe(limits));
        if (limits.globalRate() > 0) {
            values.put("rate in all B/s", limits.globalRate());
        }
        if (limits.clientRate() > 0) {
            values.put("rate per client B/s", limits.clientRate());
        }
        if (limits.requestRate() > 0) {
            values.put("rate per request B/s", limits.requestRate());
        }
        if (limits.maxRequestsPerClient() > 0) {
            values.put("requests per client", (long) limits.maxRequestsPerClient());
        }
        return values;
    }

    /**
     * The limits that are set, in words short enough for a status page box, e.g. {@code 20 KiB/s per request (burst
     * 32 KiB)}; JMX has every detail ({@code ThrottleMXBean.getLimits()}).
     */
    static String describe(ThrottleLimits limits) {
        List<String> parts = new ArrayList<>();
        rate(parts, limits.globalRate(), limits.globalCapacity(), "in all");
        rate(parts, limits.clientRate(), limits.clientCapacity(), "per client");
        rate(parts, limits.requestRate(), limits.requestCapacity(), "per request");
        if (limits.maxRequestsPerClient() > 0) {
            parts.add(limits.maxRequestsPerClient() + " requests per client");
        }
        if (!limits.allow().isEmpty()) {
            parts.add("allow " + limits.allow());
        }
        if (!limits.deny().isEmpty()) {
            parts.add("deny " + limits.deny());
        }
        return parts.isEmpty() ? "none" : String.join(", ", parts);
    }

    private static void rate(List<String> parts, long rate, long capacity, String scope) {
        if (rate > 0) {
            parts.add(ThrottleLimits.formatRate(rate) + " " + scope + " (burst " + ThrottleLimits.formatSize(capacity)
                    + ")");
        }
    }

    /** The bundled demo site, extracted to a temporary directory (deleted at exit). */
    static final class DemoSite {
        private DemoSite() {}

        static Path extract(int port) throws IOException {
            Path dir = Files.createTempDirectory("quarry-demo-");
            copy("index.html", dir.resolve("index.html"), port);
            copy("demo.css", dir.resolve("demo.css"), port);
            Path downloads = Files.createDirectories(dir.resolve("download"));
            byte[] data = new byte[200 * 1024];
            new Random(42).nextBytes(data);
            Files.write(downloads.resolve("200k.bin"), data);
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> delete(dir)));
            return dir;
        }

        private static void copy(String resource, Path target, int port) throws IOException {
            try (InputStream in = ServeCommand.class.getResourceAsStream("demo/" + resource)) {
                if (in == null) {
                    throw new IOException("demo resource missing from the jar: " + resource);
                }
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                Files.writeString(target, text.replace("localhost:PORT", "localhost:" + (port == 0 ? 8080 : port)));
            }
        }

        private static void delete(Path dir) {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> {
                    try {
                        Files.deleteIfExists(path);
                    } catch (IOException x) {
                        throw new UncheckedIOException(x);
                    }
                });
            } catch (IOException | UncheckedIOException x) {
                // Best effort: a temporary directory left behind is harmless.
            }
        }
    }
}
