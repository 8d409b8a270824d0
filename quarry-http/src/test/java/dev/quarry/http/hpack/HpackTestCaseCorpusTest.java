package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The public HPACK corpus (http2jp/hpack-test-case, kept in conformance/hpack-test-case): every story of every
 * encoder's directory decodes to its expected header lists, in order, with one decoder per story.
 */
class HpackTestCaseCorpusTest {

    @Test
    void corpusHasEveryEncoderDirectoryAndItsStories() throws IOException {
        List<Path> directories = TestData.encoderDirectories();
        assertTrue(directories.size() >= 8, "encoder directories: " + directories);
        for (Path directory : directories) {
            assertFalse(TestData.stories(directory).isEmpty(), directory.toString());
        }
    }

    @TestFactory
    List<DynamicTest> everyStoryOfEveryEncoderDecodesToItsHeaders() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path directory : TestData.encoderDirectories()) {
            for (TestData.Story story : TestData.stories(directory)) {
                tests.add(dynamicTest(story.name(), () -> decodeStory(story)));
            }
        }
        return tests;
    }

    /**
     * Decodes a story's cases in order with one decoder. A case's {@code header_table_size} is the value of our
     * SETTINGS_HEADER_TABLE_SIZE acknowledged before it: absent or null means unchanged (swift-nio writes null), the
     * same value again means unchanged (go-hpack repeats it), and a new value is applied before the block, which then
     * begins with the encoder's dynamic table size update.
     */
    static void decodeStory(TestData.Story story) throws HpackException {
        HpackDecoder decoder = new HpackDecoder();
        for (TestData.Case c : story.cases()) {
            Long tableSize = c.headerTableSize();
            if (tableSize != null && tableSize != decoder.maxTableSize()) {
                decoder.setMaxTableSize(tableSize.intValue());
            }
            CollectingSink sink = new CollectingSink();
            ByteBuffer wire = Hex.buffer(c.wire());
            decoder.decode(wire, sink);
            assertEquals(c.headers(), sink.plain(), () -> story.name() + " seqno " + c.seqno());
            assertFalse(wire.hasRemaining(), "the block is consumed");
            assertTrue(decoder.tableSize() <= decoder.tableMaxSize(), decoder::toString);
        }
    }
}
