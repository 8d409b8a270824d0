package dev.quarry.http.hpack;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Our encoder's output decodes back through our decoder to the same header lists, for every story of the corpus
 * (the raw-data sets and every encoder directory's lists), at several table sizes, with and without Huffman coding;
 * after every block both sides hold the same dynamic table.
 */
class RoundTripTest {

    private static final int[] TABLE_SIZES = {0, 256, 4096, 65536};

    @TestFactory
    List<DynamicTest> everyCorpusHeaderListRoundTrips() throws IOException {
        List<Path> directories = new ArrayList<>();
        directories.add(TestData.rawData());
        directories.addAll(TestData.encoderDirectories());
        List<DynamicTest> tests = new ArrayList<>();
        for (Path directory : directories) {
            List<TestData.Story> stories = TestData.stories(directory);
            for (int tableSize : TABLE_SIZES) {
                for (boolean huffman : new boolean[] {true, false}) {
                    String name = directory.getFileName() + " table=" + tableSize + " huffman=" + huffman;
                    tests.add(dynamicTest(name, () -> {
                        for (TestData.Story story : stories) {
                            roundTrip(story, tableSize, huffman);
                        }
                    }));
                }
            }
        }
        return tests;
    }

    private static void roundTrip(TestData.Story story, int tableSize, boolean huffman) throws HpackException {
        HpackEncoder encoder = new HpackEncoder(tableSize, huffman, HpackEncoder.DEFAULT_POLICY);
        encoder.setMaxTableSize(tableSize);
        HpackDecoder decoder = new HpackDecoder(tableSize, HpackLimits.DEFAULT.withMaxHeaderListSize(1 << 20));
        HpackOutput out = new HpackOutput();
        for (TestData.Case c : story.cases()) {
            out.clear();
            encoder.encode(c.headers(), out);
            CollectingSink sink = new CollectingSink();
            decoder.decode(out.asByteBuffer(), sink);
            assertEquals(c.headers(), sink.plain(), () -> story.name() + " seqno " + c.seqno());
            assertArrayEquals(encoder.tableEntries(), decoder.tableEntries(), () -> story.name() + " " + c.seqno());
            assertEquals(encoder.tableSize(), decoder.tableSize());
        }
    }
}
