package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.fail;

import dev.quarry.http.testing.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Locates and reads the HPACK test corpus (http2jp/hpack-test-case), which the repository keeps with its licence in
 * conformance/hpack-test-case (see conformance/README.md).
 */
final class TestData {

    private TestData() {}

    /** One {@code cases} element of a story. */
    record Case(int seqno, Long headerTableSize, String wire, List<HeaderField> headers) {}

    /** One story file: a sequence of blocks that share one compression context. */
    record Story(Path file, List<Case> cases) {
        String name() {
            return file.getParent().getFileName() + "/" + file.getFileName();
        }
    }

    static Path hpackTestCase() {
        Path conformance = conformanceDirectory();
        Path dir = conformance.resolve("hpack-test-case").normalize();
        if (!Files.isDirectory(dir.resolve("raw-data"))) {
            fail("HPACK test corpus not found at " + dir.toAbsolutePath()
                    + ": it is part of the repository (conformance/hpack-test-case); is the checkout complete?");
        }
        return dir;
    }

    /**
     * The repository's conformance/ folder: from the {@code quarry.conformance} property that quarry-http/pom.xml sets
     * for Surefire, or, when a test runs outside Maven (an IDE), the nearest conformance/ above the working directory.
     */
    private static Path conformanceDirectory() {
        String property = System.getProperty("quarry.conformance");
        if (property != null) {
            return Path.of(property);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("conformance/hpack-test-case"))) {
                return dir.resolve("conformance");
            }
        }
        fail("conformance/hpack-test-case not found above " + Path.of("").toAbsolutePath()
                + ": run the tests from the repository (mvn verify), or pass -Dquarry.conformance=<repo>/conformance");
        throw new AssertionError("unreachable");
    }

    /** @return the directories of encoder outputs (every directory but raw-data), sorted */
    static List<Path> encoderDirectories() throws IOException {
        try (Stream<Path> dirs = Files.list(hpackTestCase())) {
            return dirs.filter(Files::isDirectory)
                    .filter(d -> !d.getFileName().toString().equals("raw-data"))
                    .sorted()
                    .toList();
        }
    }

    static Path rawData() {
        return hpackTestCase().resolve("raw-data");
    }

    static List<Story> stories(Path directory) throws IOException {
        List<Story> stories = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                stories.add(read(file));
            }
        }
        if (stories.isEmpty()) {
            fail("no story_*.json in " + directory);
        }
        return stories;
    }

    @SuppressWarnings("unchecked")
    static Story read(Path file) throws IOException {
        Map<String, Object> root = (Map<String, Object>) Json.parse(Files.readString(file));
        List<Case> cases = new ArrayList<>();
        for (Object element : (List<Object>) root.get("cases")) {
            Map<String, Object> c = (Map<String, Object>) element;
            List<HeaderField> headers = new ArrayList<>();
            for (Object header : (List<Object>) c.get("headers")) {
                for (Map.Entry<String, Object> e : ((Map<String, Object>) header).entrySet()) {
                    headers.add(new HeaderField(e.getKey(), (String) e.getValue()));
                }
            }
            Object seqno = c.get("seqno");
            cases.add(new Case(
                    seqno == null ? cases.size() : ((Long) seqno).intValue(),
                    (Long) c.get("header_table_size"),
                    (String) c.get("wire"),
                    headers));
        }
        return new Story(file, cases);
    }
}
