package dev.quarry.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A headless Chromium started for one test class, with a fresh temporary profile and the DevTools endpoint on a port
 * it picks itself. {@link #close()} kills it (and every process it started) and deletes the profile.
 *
 * <p>The flags are those known to work on a machine without a network: without the background-networking ones,
 * Chromium keeps trying to reach Google's hosts. Its stderr is drained by one daemon thread for its whole life (a full
 * pipe would stall the browser); the last lines are kept for failure messages. Not thread-safe except for
 * {@link #recentOutput()}.
 */
final class Chromium implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://\\S+)");
    private static final int KEPT_LINES = 40;

    private final Process process;
    private final Path profile;
    private final URI browserEndpoint;
    private final Deque<String> recentLines = new ArrayDeque<>();
    private final ReentrantLock recentLock = new ReentrantLock();

    /**
     * @return the Chromium binary to use: {@code $CHROMIUM} if set, else {@code /usr/bin/chromium}, if executable
     */
    static Optional<Path> binary() {
        String configured = System.getenv("CHROMIUM");
        Path candidate = Path.of(configured != null && !configured.isBlank() ? configured : "/usr/bin/chromium");
        return Files.isExecutable(candidate) ? Optional.of(candidate) : Optional.empty();
    }

    private Chromium(Path binary, Duration startTimeout, List<String> options) throws IOException {
        profile = Files.createTempDirectory("quarry-chromium-");
        List<String> command = new java.util.ArrayList<>(List.of(
                binary.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile,
                "--remote-debugging-port=0",
                "--window-size=1280,900"));
        command.addAll(options);
        command.add("about:blank");
        process = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        CompletableFuture<URI> endpoint = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("chromium-stderr-" + process.pid()).start(() -> drain(endpoint));
        try {
            browserEndpoint = endpoint.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException | InterruptedException x) {
            String output = recentOutput();
            close();
            if (x instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException(
                    "Chromium did not print its DevTools endpoint within " + startTimeout + " (alive: "
                            + process.isAlive() + "); its last output:\n" + output,
                    x);
        }
    }

    /**
     * Starts Chromium and waits until it says where DevTools listens.
     *
     * @param binary the executable
     * @param startTimeout how long to wait for the DevTools endpoint
     * @return the running browser
     * @throws IOException if it cannot be started or does not announce its endpoint in time
     */
    static Chromium start(Path binary, Duration startTimeout) throws IOException {
        return new Chromium(binary, startTimeout, List.of());
    }

    /**
     * Starts Chromium with more command-line options and waits until it says where DevTools listens.
     *
     * @param binary the executable
     * @param startTimeout how long to wait for the DevTools endpoint
     * @param options more options, e.g. {@code --ignore-certificate-errors}
     * @return the running browser
     * @throws IOException if it cannot be started or does not announce its endpoint in time
     */
    static Chromium start(Path binary, Duration startTimeout, List<String> options) throws IOException {
        return new Chromium(binary, startTimeout, List.copyOf(options));
    }

    private void drain(CompletableFuture<URI> endpoint) {
        try (BufferedReader err =
                new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            for (String line = err.readLine(); line != null; line = err.readLine()) {
                keep(line);
                Matcher matcher = LISTENING.matcher(line);
                if (matcher.find()) {
                    endpoint.complete(URI.create(matcher.group(1)));
                }
            }
            endpoint.completeExceptionally(new IOException("Chromium closed its stderr (exited?)"));
        } catch (IOException x) {
            // The stream closes under us when the process is killed: that ends the drain.
            endpoint.completeExceptionally(x);
        }
    }

    private void keep(String line) {
        recentLock.lock();
        try {
            if (recentLines.size() == KEPT_LINES) {
                recentLines.removeFirst();
            }
            recentLines.addLast(line);
        } finally {
            recentLock.unlock();
        }
    }

    /** @return the last lines Chromium wrote to stderr, for failure messages */
    String recentOutput() {
        recentLock.lock();
        try {
            return String.join("\n", recentLines);
        } finally {
            recentLock.unlock();
        }
    }

    /**
     * Finds the WebSocket address of the page target (the about:blank tab it opened), asking {@code /json/list} until
     * one is listed.
     *
     * @param http the client to ask with
     * @param deadline when to give up, as {@link System#nanoTime()}
     * @return the page's {@code webSocketDebuggerUrl}
     * @throws IOException if no page target is listed in time
     */
    URI pageEndpoint(HttpClient http, long deadline) throws IOException, InterruptedException {
        URI list = URI.create("http://" + browserEndpoint.getAuthority() + "/json/list");
        String last = "";
        do {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(list).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            last = response.body();
            if (CdpJson.read(last) instanceof List<?> targets) {
                for (Object target : targets) {
                    if (target instanceof Map<?, ?> t
                            && "page".equals(t.get("type"))
                            && t.get("webSocketDebuggerUrl") instanceof String url) {
                        return URI.create(url);
                    }
                }
            }
            // The first tab is listed shortly after the endpoint is announced; ask again until the deadline.
            Thread.onSpinWait();
        } while (System.nanoTime() - deadline < 0);
        throw new IOException("no page target in " + list + ": " + last);
    }

    /** Kills the browser and everything it started, and deletes the temporary profile. Idempotent. */
    @Override
    public void close() {
        // Renderer and GPU helpers are children of the browser process: kill them first so that none outlives it.
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                System.err.println("Chromium " + process.pid() + " still alive 10 s after SIGKILL");
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        deleteProfile();
    }

    private void deleteProfile() {
        // The profile's SingletonSocket links to a directory of Chromium's own under /tmp: delete that too.
        Path socketDir = null;
        try {
            Path socket = Files.readSymbolicLink(profile.resolve("SingletonSocket"));
            if (socket.getParent() != null
                    && socket.getParent().getFileName().toString().startsWith(".org.chromium.")) {
                socketDir = socket.getParent();
            }
        } catch (IOException | UnsupportedOperationException x) {
            // No link (Chromium died before making it): nothing outside the profile to delete.
        }
        delete(profile);
        if (socketDir != null) {
            delete(socketDir);
        }
    }

    private static void delete(Path dir) {
        // Helpers that were just killed may still be writing into the directory: retry a few times.
        Exception last = null;
        for (int attempt = 0; attempt < 5 && Files.exists(dir, LinkOption.NOFOLLOW_LINKS); attempt++) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
                last = null;
            } catch (IOException | UncheckedIOException x) {
                last = x;
            }
        }
        if (last != null) {
            System.err.println("could not delete " + dir + ": " + last);
        }
    }

    @Override
    public String toString() {
        return "Chromium{pid=" + process.pid() + ", alive=" + process.isAlive() + ", devtools=" + browserEndpoint
                + ", profile=" + profile + "}";
    }
}
