package dev.quarry.cli;

import dev.quarry.server.AccessLog;
import dev.quarry.server.Server;
import dev.quarry.server.ServerBuilder;
import dev.quarry.server.handlers.ThrottleLimits;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code quarry} command. {@code ./quarry --help} lists the subcommands; each has its own {@code --help}.
 */
public final class Main {
    static final String USAGE = """
            Usage: quarry <command> [options]

            Commands:
              serve       serve a directory, or the demo site without one (./quarry serve --help)
              plaintext   the TechEmpower plaintext app: GET /plaintext answers "Hello, World!"
                          (HTTP/1.1 and h2c on one port; used by quarry-bench/run.sh plaintext and h2)
              get         send one request with Quarry's client, curl-like (./quarry get --help)
              load        a load generator on Quarry's client: req/s, errors, latency percentiles

            Options:
              -h, --help      this help; 'quarry <command> --help' shows the options of a command
              -V, --version   the version of Quarry and of the Java runtime

            Environment: JAVA_OPTS are passed to the JVM (e.g. JAVA_OPTS="-Xmx1g"; logging: docs/logging.md).
            """;

    /** The connection-limit and HTTPS options, shared by the help of {@code plaintext} and {@code serve}. */
    static final String CONNECTION_AND_TLS_OPTIONS = """
              --max-connections N     open connections at most; at the cap, accepting pauses
                                      (default: half of ulimit -n beyond 256; 0: no cap)
              --header-timeout DURATION  a request head must arrive within this once begun,
                                      else 408 (default 15s)
              --min-body-rate RATE    a request body must arrive at least this fast while the handler
                                      waits for it (e.g. 1k = 1000 bytes/s), else 408 (default: none)
              --https-port N          also serve HTTPS on port N: h2 and http/1.1 by ALPN
              --cert FILE --key FILE  its certificate chain and PKCS#8 key (PEM, as nginx takes them);
                                      repeat both for more certificates, chosen by SNI (the first
                                      is the default)
              --keystore FILE         or PKCS#12 keystores, every key entry a certificate (repeatable;
                                      --keystore-password PW, default empty); neither: a development
                                      certificate for localhost, made on first use in
                                      ~/.quarry/dev-cert.p12 (browsers warn about it)
              --require-sni           refuse TLS clients that name no host, or one no certificate has
              --watch-certs DURATION  reload the certificate files when they change, looking this
                                      often (e.g. 1m); open connections keep their certificate
              --redirect-https        answer every plain-HTTP request with 308 to the HTTPS port
            """;

    static final String PLAINTEXT_USAGE = """
            Usage: quarry plaintext [options]

            Serves GET /plaintext -> 200 "Hello, World!" (text/plain, with Server and Date headers).

            Options:
              --port N                TCP port (default 8080; 0 picks a free one)
              --host HOST             address to bind (default: all interfaces)
              --unix PATH             listen on a Unix-domain socket instead of TCP
              --idle-timeout SECONDS  close connections idle this long (default 30; also 500ms, 5m)
              --proxy-protocol        accept a PROXY protocol v1/v2 header from the proxy in front
                                      (haproxy send-proxy-v2, nginx proxy_protocol) on every listener:
                                      its client address is the one logged and throttled
              --h2c on|off|only       also speak HTTP/2 cleartext on the same port (default on);
                                      only: HTTP/2 by prior knowledge only, no HTTP/1.1
              --virtual-threads on|off  run blocking handlers on virtual threads (default on)
              --threads N             maximum platform threads (default: 8 per core, at least 16)
              --selectors N           selector threads (default: 1 per 4 cores, at least 1)
            """ + CONNECTION_AND_TLS_OPTIONS + """
              --access-log FILE|-     log every request to FILE (appended), or to standard output with -
              --access-log-format combined|json  NCSA combined (default) or JSON lines
              --blocking              answer with a blocking Handler (send(String), on a virtual thread
                                      unless --virtual-threads off) instead of the asynchronous one
              -h, --help              this help
            """;

    static final Set<String> SERVER_OPTIONS = Set.of(
            "port",
            "host",
            "unix",
            "idle-timeout",
            "h2c",
            "virtual-threads",
            "threads",
            "selectors",
            "max-connections",
            "header-timeout",
            "min-body-rate",
            "https-port",
            "cert",
            "key",
            "keystore",
            "keystore-password",
            "watch-certs",
            "access-log",
            "access-log-format");

    /** The flags (options without a value) shared by the server commands. */
    static final Set<String> SERVER_FLAGS = Set.of("require-sni", "redirect-https", "proxy-protocol");

    /** {@code plaintext}'s flags: the server's, and {@code --blocking}. */
    static final Set<String> PLAINTEXT_FLAGS = Set.of("require-sni", "redirect-https", "proxy-protocol", "blocking");

    private Main() {}

    /**
     * Runs a subcommand; a server runs until the JVM is asked to stop (Ctrl-C, SIGTERM), then stops gracefully.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        configureLogging();
        int status = run(Arrays.asList(args), System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || Options.isHelp(args.get(0)) || args.get(0).equals("help")) {
            out.print(USAGE);
            return args.isEmpty() ? 2 : 0;
        }
        if (args.get(0).equals("--version")
                || args.get(0).equals("-V")
                || args.get(0).equals("version")) {
            out.print(Version.describe());
            return 0;
        }
        String command = args.get(0);
        List<String> rest = args.subList(1, args.size());
        try {
            switch (command) {
                case "serve" -> {
                    if (Options.wantsHelp(rest)) {
                        out.print(ServeCommand.USAGE);
                        return 0;
                    }
                    Options options = Options.parse(rest, ServeCommand.OPTIONS, ServeCommand.FLAGS);
                    runUntilStopped(ServeCommand.build(options), ServeCommand.served(options));
                    return 0;
                }
                case "plaintext" -> {
                    if (Options.wantsHelp(rest)) {
                        out.print(PLAINTEXT_USAGE);
                        return 0;
                    }
                    Options options = Options.parse(rest, SERVER_OPTIONS, PLAINTEXT_FLAGS);
                    ServerBuilder builder = serverBuilder(options);
                    if (options.flag("blocking")) {
                        builder.route("GET /plaintext", new BlockingPlaintextApp());
                    } else {
                        builder.route("GET /plaintext", new PlaintextApp());
                    }
                    runUntilStopped(
                            builder.build(),
                            "Serving the plaintext app: GET /plaintext"
                                    + (options.flag("blocking") ? " (a blocking handler)" : ""));
                    return 0;
                }
                case "get" -> {
                    if (Options.wantsHelp(rest)) {
                        out.print(GetCommand.USAGE);
                        return 0;
                    }
                    List<String> expanded = GetCommand.expandShortOptions(rest);
                    return GetCommand.run(Options.parse(expanded, GetCommand.OPTIONS, GetCommand.FLAGS), out, err);
                }
                case "load" -> {
                    if (Options.wantsHelp(rest)) {
                        out.print(LoadCommand.USAGE);
                        return 0;
                    }
                    List<String> expanded = LoadCommand.expandShortOptions(rest);
                    return LoadCommand.run(Options.parse(expanded, LoadCommand.OPTIONS, LoadCommand.FLAGS), out, err);
                }
                default -> {
                    err.println("quarry: unknown command '" + command + "'");
                    err.print(USAGE);
                    return 2;
                }
            }
        } catch (Options.UsageException x) {
            err.println("quarry " + command + ": " + x.getMessage());
            err.println("Run 'quarry " + command + " --help' for the options.");
            return 2;
        } catch (Exception x) {
            err.println("quarry " + command + ": " + message(x, rest));
            return 1;
        }
    }

    /** What went wrong, in words: never a bare exception class name. */
    static String message(Exception x, List<String> args) {
        boolean unresolved =
                x instanceof java.net.UnknownHostException || x instanceof java.nio.channels.UnresolvedAddressException;
        if (unresolved && (x.getMessage() == null || !x.getMessage().startsWith("cannot resolve host"))) {
            String host = String.valueOf(x.getMessage());
            for (int i = 0; i < args.size(); i++) {
                if (args.get(i).equals("--host") && i + 1 < args.size()) {
                    host = args.get(i + 1);
                } else if (args.get(i).startsWith("--host=")) {
                    host = args.get(i).substring("--host=".length());
                }
            }
            return "cannot resolve host '" + host + "'";
        }
        return x.getMessage() == null ? x.toString() : x.getMessage();
    }

    /** The connector and thread options shared by the server commands. */
    static ServerBuilder serverBuilder(Options options) {
        ServerBuilder builder = Server.builder();
        String h2c = options.string("h2c").orElse("on").trim().toLowerCase(java.util.Locale.ROOT);
        if (!h2c.equals("on") && !h2c.equals("off") && !h2c.equals("only")) {
            throw new Options.UsageException("--h2c must be on, off or only, not '" + h2c + "'");
        }
        if (options.string("unix").isPresent()) {
            builder.unix(Path.of(options.string("unix").get()));
        } else {
            int port = options.integer("port", 8080, 0, 65535);
            String host = options.string("host").orElse(null);
            if (h2c.equals("only")) {
                builder.http2(host, port);
            } else if (host != null) {
                builder.http(host, port);
            } else {
                builder.http(port);
            }
        }
        if (options.flag("proxy-protocol")) {
            builder.proxyProtocol(true);
        }
        https(options, builder);
        builder.h2c(!h2c.equals("off"));
        builder.idleTimeout(options.duration("idle-timeout", Duration.ofSeconds(30)));
        builder.virtualThreads(options.onOff("virtual-threads", true));
        if (options.string("threads").isPresent()) {
            builder.maxThreads(options.integer("threads", 16, 2, 100_000));
        }
        if (options.string("selectors").isPresent()) {
            builder.selectors(options.integer("selectors", 1, 1, 256));
        }
        if (options.string("max-connections").isPresent()) {
            builder.maxConnections(options.integer("max-connections", 0, 0, Integer.MAX_VALUE));
        }
        if (options.string("header-timeout").isPresent()) {
            builder.headerTimeout(options.duration("header-timeout", Duration.ofSeconds(15)));
        }
        if (options.string("min-body-rate").isPresent()) {
            builder.minRequestBodyRate(
                    minBodyRate(options.string("min-body-rate").get()));
        }
        accessLog(options).ifPresent(builder::accessLog);
        return builder;
    }

    /** {@code --min-body-rate RATE}: bytes per second, with the units of the throttle's rates; 0 or off for none. */
    static long minBodyRate(String value) {
        try {
            return ThrottleLimits.parseRate(value);
        } catch (IllegalArgumentException x) {
            throw new Options.UsageException("--min-body-rate: " + x.getMessage());
        }
    }

    /** {@code --access-log FILE|-} and {@code --access-log-format combined|json}. */
    static java.util.Optional<AccessLog> accessLog(Options options) {
        String format = options.string("access-log-format").orElse("combined").trim();
        AccessLog.Format parsed = switch (format.toLowerCase(java.util.Locale.ROOT)) {
            case "combined" -> AccessLog.Format.COMBINED;
            case "json" -> AccessLog.Format.JSON;
            default ->
                throw new Options.UsageException("--access-log-format must be combined or json, not '" + format + "'");
        };
        if (options.string("access-log").isEmpty()) {
            if (options.string("access-log-format").isPresent()) {
                throw new Options.UsageException("--access-log-format needs --access-log FILE|-");
            }
            return java.util.Optional.empty();
        }
        String target = options.string("access-log").get();
        if (target.isBlank()) {
            throw new Options.UsageException("--access-log needs a file, or - for standard output");
        }
        return java.util.Optional.of(
                target.equals("-") ? AccessLog.toStandardOutput(parsed) : AccessLog.toFile(Path.of(target), parsed));
    }

    /**
     * {@code --https-port N} with {@code --cert FILE --key FILE} (PEM, repeatable), {@code --keystore FILE
     * [--keystore-password PW]} (PKCS#12, repeatable), or neither: a development certificate for localhost ({@link
     * DevCertificate}); {@code --require-sni}, {@code --watch-certs DURATION} and {@code --redirect-https}. The HTTPS
     * listener binds the same host as the plain one.
     */
    private static void https(Options options, ServerBuilder builder) {
        List<String> certs = options.all("cert");
        List<String> keys = options.all("key");
        List<String> keystores = options.all("keystore");
        boolean pem = !certs.isEmpty() || !keys.isEmpty();
        boolean keystore = !keystores.isEmpty();
        if (options.string("https-port").isEmpty()) {
            if (pem
                    || keystore
                    || options.string("keystore-password").isPresent()
                    || options.flag("require-sni")
                    || options.string("watch-certs").isPresent()
                    || options.flag("redirect-https")) {
                throw new Options.UsageException(
                        "--cert, --key, --keystore, --require-sni, --watch-certs and --redirect-https need"
                                + " --https-port N");
            }
            return;
        }
        if (pem && keystore) {
            throw new Options.UsageException("give --cert and --key, or --keystore, not both");
        }
        if (certs.size() != keys.size()) {
            throw new Options.UsageException("--cert FILE and --key FILE go together (PEM chain and PKCS#8 key), one"
                    + " --key per --cert: " + certs.size() + " --cert, " + keys.size() + " --key");
        }
        int port = options.integer("https-port", 8443, 0, 65535);
        String password = options.string("keystore-password").orElse(keystore ? "" : DevCertificate.PASSWORD);
        List<Path> stores = keystores.stream().map(Path::of).toList();
        if (!pem && !keystore) {
            stores = List.of(DevCertificate.ensure());
        }
        List<Path> keyStores = stores;
        boolean requireSni = options.flag("require-sni");
        java.util.Optional<Duration> watch = options.string("watch-certs").isPresent()
                ? java.util.Optional.of(options.duration("watch-certs", Duration.ofMinutes(1)))
                : java.util.Optional.empty();
        java.util.function.Consumer<dev.quarry.server.TlsConfig.Builder> tls = config -> {
            try {
                for (int i = 0; i < certs.size(); i++) {
                    config.pem(Path.of(certs.get(i)), Path.of(keys.get(i)));
                }
                for (Path store : keyStores) {
                    config.keyStore(store, password);
                }
                config.requireSni(requireSni);
                watch.ifPresent(config::watch);
            } catch (RuntimeException x) {
                throw new Options.UsageException("HTTPS: " + x.getMessage());
            }
        };
        String host = options.string("host").orElse(null);
        if (host != null) {
            builder.https(host, port, tls);
        } else {
            builder.https(port, tls);
        }
        if (options.flag("proxy-protocol")) {
            builder.proxyProtocol(true);
        }
        if (options.flag("redirect-https")) {
            builder.redirectToHttps();
        }
    }

    static void runUntilStopped(Server server, String served) throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        // The hook first: a SIGTERM that arrives as the startup line is printed must still stop the server gracefully.
        Runtime.getRuntime()
                .addShutdownHook(Thread.ofPlatform().name("quarry-shutdown").unstarted(() -> {
                    try {
                        server.stop();
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    } finally {
                        ShutdownLogManager.closeHandlers();
                        stopped.countDown();
                    }
                }));
        server.start();
        // Looked up here, not in a static field: the first logger fixes the LogManager, which main() chooses first.
        System.getLogger(Main.class.getName()).log(System.Logger.Level.INFO, served);
        stopped.await();
    }

    /**
     * One line per record, Jetty-like: {@code 2026-11-22 12:00:00.000 INFO Started http/1.1 on 0.0.0.0:8080}; unless
     * the user configures logging (a format of their own, or a {@code java.util.logging.config.file} whose format line
     * a system property would override). See docs/logging.md.
     */
    private static void configureLogging() {
        if (System.getProperty("java.util.logging.manager") == null) {
            // Before any logger exists: the manager is chosen once, when LogManager first loads.
            System.setProperty("java.util.logging.manager", ShutdownLogManager.class.getName());
        }
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null
                && System.getProperty("java.util.logging.config.file") == null
                && System.getProperty("java.util.logging.config.class") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT.%1$tL %4$s %5$s%6$s%n");
        }
    }
}
