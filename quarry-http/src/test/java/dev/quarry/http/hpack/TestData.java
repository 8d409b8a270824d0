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
 * Locates and reads the HPACK test corpus (http2jp/hpack-test-case) in the shared test data directory, given by the
 * {@code quarry.testdata} system property that quarry-http/pom.xml sets for Surefire.
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
        String property = System.getProperty("quarry.testdata");
        if (property == null) {
            fail("system property quarry.testdata is not set: run the tests through Maven (quarry-http/pom.xml sets it"
                    + " to ../../shared/testdata from the module), or pass -Dquarry.testdata=/path/to/shared/testdata");
        }
        Path dir = Path.of(property).resolve("hpack-test-case").normalize();
        if (!Files.isDirectory(dir)) {
            fail("HPACK test corpus not found at " + dir.toAbsolutePath() + " (quarry.testdata=" + property
                    + "); pass -Dquarry.testdata=/path/to/shared/testdata");
        }
        return dir;
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
