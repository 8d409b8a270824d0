package dev.quarry.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.LogManager;
import java.util.stream.Collectors;
import jdk.jshell.JShell;
import jdk.jshell.Snippet.Status;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.VarSnippet;
import jdk.jshell.execution.DirectExecutionControl;
import jdk.jshell.spi.ExecutionControl;
import jdk.jshell.spi.ExecutionControlProvider;
import jdk.jshell.spi.ExecutionEnv;

/**
 * Runs a snippet as a reader would paste it into {@code jshell}: imports, statements and declarations, in order, in a
 * fresh JShell whose class path is this test's (every Quarry module). The one change made to the text: a server bound
 * to port 8080 is bound to an ephemeral port on 127.0.0.1 instead, so that runs never collide with anything.
 *
 * <p>A snippet passes when every part of it is valid (compiles, with no unresolved name) and runs without an
 * exception. Then each {@code Server} it left running in a variable must answer an HTTP request (one it stopped itself
 * has shown enough by running), and everything it started is
 * stopped: servers first, then other {@code LifeCycle}s, then {@code AutoCloseable}s, newest first.
 */
final class SnippetRunner {
    private static final String SERVER = "dev.quarry.server.Server";

    /**
     * Runs each part on the calling thread. JShell's "local" engine runs it on a new thread in its own thread group,
     * then joins every thread of that group it finds alive: a server started by the part can have started its own
     * threads in that group by then (on a loaded machine it often has), and the join waits for them to end, which is
     * never. That hung the build once.
     */
    private static final ExecutionControlProvider ON_THIS_THREAD = new ExecutionControlProvider() {
        @Override
        public String name() {
            return "quarry-direct";
        }

        @Override
        public ExecutionControl generate(ExecutionEnv env, Map<String, String> parameters) {
            return new DirectExecutionControl();
        }
    };

    private SnippetRunner() {}

    /** @return the text that runs: {@code .http(8080)} becomes {@code .http("127.0.0.1", 0)} */
    static String forRunning(String source) {
        return source.replace(".http(8080)", ".http(\"127.0.0.1\", 0)");
    }

    static void run(Snippet snippet) throws Exception {
        PrintStream out = System.out;
        try (JShell shell = JShell.builder()
                .executionEngine(ON_THIS_THREAD, Map.of())
                .out(out)
                .err(System.err)
                .build()) {
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                shell.addToClasspath(entry);
            }
            evalAll(shell, snippet, forRunning(snippet.source()));
            List<VarSnippet> variables = shell.variables().collect(Collectors.toCollection(ArrayList::new));
            try {
                for (VarSnippet variable : variables) {
                    // A snippet that stops its server itself (as the docs ask) has shown it ran by not throwing.
                    if (isServer(shell, snippet, variable) && isRunning(shell, snippet, variable)) {
                        assertAnswers(snippet, variable, uri(shell, snippet, variable));
                    }
                }
            } finally {
                stopAll(shell, snippet, variables);
                // Snippets run in this JVM: one that configures java.util.logging must not change the next one's.
                LogManager.getLogManager().readConfiguration();
            }
        }
    }

    /** Evaluates {@code source} one complete part (import, statement, declaration) at a time, failing on the first bad one. */
    private static void evalAll(JShell shell, Snippet snippet, String source) {
        SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
        String remaining = source;
        while (!remaining.isBlank()) {
            SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(remaining);
            switch (info.completeness()) {
                case EMPTY -> {
                    return; // only comments left
                }
                case COMPLETE, COMPLETE_WITH_SEMI -> eval(shell, snippet, info.source());
                default ->
                    throw new AssertionError(
                            snippet + ": incomplete Java (" + info.completeness() + ") at:\n" + remaining.strip());
            }
            remaining = info.remaining();
        }
    }

    /** @return the value of an expression, as JShell prints it (strings in quotes) */
    private static String eval(JShell shell, Snippet snippet, String code) {
        String value = null;
        for (SnippetEvent event : shell.eval(code)) {
            if (event.causeSnippet() != null) {
                continue; // an earlier part updated by this one
            }
            if (event.status() != Status.VALID) {
                String diagnostics = shell.diagnostics(event.snippet())
                        .map(d -> d.getMessage(Locale.ROOT))
                        .collect(Collectors.joining("\n  "));
                throw new AssertionError(snippet + ": does not compile as written (" + event.status() + "):\n"
                        + code.strip() + "\n  " + (diagnostics.isEmpty() ? unresolved(shell, event) : diagnostics));
            }
            if (event.exception() != null) {
                throw new AssertionError(snippet + ": threw when run:\n" + code.strip(), event.exception());
            }
            value = event.value();
        }
        return value;
    }

    private static String unresolved(JShell shell, SnippetEvent event) {
        if (event.snippet() instanceof jdk.jshell.DeclarationSnippet declaration) {
            return "unresolved: " + shell.unresolvedDependencies(declaration).collect(Collectors.joining(", "));
        }
        return "";
    }

    private static boolean isServer(JShell shell, Snippet snippet, VarSnippet variable) {
        return "true".equals(eval(shell, snippet, "((Object) " + variable.name() + ") instanceof " + SERVER));
    }

    private static boolean isRunning(JShell shell, Snippet snippet, VarSnippet variable) {
        return "true".equals(eval(shell, snippet, "((" + SERVER + ") (Object) " + variable.name() + ").isRunning()"));
    }

    private static URI uri(JShell shell, Snippet snippet, VarSnippet variable) {
        String quoted = eval(shell, snippet, "((" + SERVER + ") (Object) " + variable.name() + ").uri().toString()");
        return URI.create(quoted.substring(1, quoted.length() - 1));
    }

    /** Any HTTP answer will do (a snippet's routes are its own): the server must be up and speaking HTTP. */
    private static void assertAnswers(Snippet snippet, VarSnippet variable, URI uri) throws Exception {
        try (HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(
                    response.statusCode() >= 200 && response.statusCode() < 600,
                    () -> snippet + ": " + variable.name() + " at " + uri + " answered " + response.statusCode());
        }
    }

    private static void stopAll(JShell shell, Snippet snippet, List<VarSnippet> variables) {
        List<VarSnippet> newestFirst = new ArrayList<>(variables);
        java.util.Collections.reverse(newestFirst);
        for (String kind : List.of(SERVER, "dev.quarry.core.LifeCycle", "java.lang.AutoCloseable")) {
            for (VarSnippet variable : newestFirst) {
                String stop = kind.equals("java.lang.AutoCloseable") ? "close" : "stop";
                eval(
                        shell,
                        snippet,
                        "{ Object o = " + variable.name() + "; if (o instanceof " + kind + " x) x." + stop + "(); }");
            }
        }
    }
}
