package dev.quarry.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code ```java} block of README.md and docs/*.md runs as written ({@link SnippetRunner}): a snippet that no
 * longer compiles, misses an import or throws fails the build, named by file and line.
 */
class DocSnippetsTest {
    private static final Duration SNIPPET_TIMEOUT = Duration.ofSeconds(120);

    private static Path root() {
        return Path.of(System.getProperty("quarry.root", "..")).toAbsolutePath().normalize();
    }

    static List<Snippet> allSnippets() throws IOException {
        Path root = root();
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<Snippet> snippets = new ArrayList<>();
        for (Path file : files) {
            snippets.addAll(Snippet.in(root, file));
        }
        return snippets;
    }

    @TestFactory
    Stream<DynamicTest> everyJavaSnippetRunsAsWritten() throws IOException {
        // JUnit's default timeout does not cover dynamic tests: each snippet gets its own, so that one that hangs
        // fails the build, named, rather than stalling it.
        return allSnippets().stream()
                .map(s -> dynamicTest(
                        s.location(),
                        () -> assertTimeoutPreemptively(
                                SNIPPET_TIMEOUT,
                                () -> SnippetRunner.run(s),
                                () -> s + ": still running after " + SNIPPET_TIMEOUT.toSeconds() + " s")));
    }

    @Test
    void theReadmeAndTheDocsHaveSnippetsToCheck() throws IOException {
        List<Snippet> snippets = allSnippets();
        // A broken extractor that finds nothing would make the check above pass vacuously.
        assertTrue(snippets.stream().anyMatch(s -> s.file().toString().equals("README.md")), snippets.toString());
        assertTrue(snippets.size() >= 8, snippets.toString());
    }

    @Test
    void onlyJavaBlocksAreSnippetsAndOtherFencesAreSkippedWhole() {
        String markdown = """
                # Title
                ```sh
                ./quarry serve
                ```
                ````markdown
                ```java
                not a snippet
                ```
                ````
                  ```java
                int a = 1;
                ```
                text
                ```java title="x"
                int b = 2;
                ```
                """;
        List<Snippet> snippets = Snippet.parse(Path.of("x.md"), markdown);

        assertEquals(2, snippets.size(), snippets.toString());
        assertEquals("x.md:10", snippets.get(0).location());
        assertEquals("int a = 1;\n", snippets.get(0).source());
        assertEquals("int b = 2;\n", snippets.get(1).source());
    }

    @Test
    void anUnclosedBlockIsAnErrorNamingItsLine() {
        IllegalArgumentException x = assertThrows(
                IllegalArgumentException.class, () -> Snippet.parse(Path.of("x.md"), "text\n```java\nint a;\n"));
        assertEquals("x.md:2: the code block opened here is never closed", x.getMessage());
    }

    @Test
    void aFenceIndentedFourSpacesIsCodeNotAFence() {
        assertEquals(List.of(), Snippet.parse(Path.of("x.md"), "    ```java\n    int a;\n    ```\n"));
    }

    @Test
    void onlyTheEightyEightyBindIsChangedForRunning() {
        assertEquals(
                "Server.builder().http(\"127.0.0.1\", 0).route(\"GET /8080\", h)",
                SnippetRunner.forRunning("Server.builder().http(8080).route(\"GET /8080\", h)"));
    }

    @Test
    void aSnippetThatDoesNotCompileFailsWithItsLocationAndTheCompilersMessage() {
        Snippet broken = new Snippet(Path.of("x.md"), 3, "int a = \"text\";\n");

        AssertionError x = assertThrows(AssertionError.class, () -> SnippetRunner.run(broken));
        assertTrue(x.getMessage().startsWith("x.md:3: does not compile as written"), x.getMessage());
        assertTrue(x.getMessage().contains("incompatible types"), x.getMessage());
    }

    @Test
    void aSnippetMissingAnImportFails() {
        Snippet noImport = new Snippet(Path.of("x.md"), 1, "ThreadPool pool = ThreadPool.builder().build();\n");

        AssertionError x = assertThrows(AssertionError.class, () -> SnippetRunner.run(noImport));
        assertTrue(x.getMessage().contains("does not compile as written"), x.getMessage());
    }

    @Test
    void aSnippetThatThrowsFails() {
        Snippet throwing = new Snippet(Path.of("x.md"), 1, "Integer.parseInt(\"x\");\n");

        AssertionError x = assertThrows(AssertionError.class, () -> SnippetRunner.run(throwing));
        assertTrue(x.getMessage().startsWith("x.md:1: threw when run"), x.getMessage());
    }
}
