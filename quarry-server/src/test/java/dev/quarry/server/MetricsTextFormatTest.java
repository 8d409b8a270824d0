package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quarry.server.PrometheusText.Type;
import org.junit.jupiter.api.Test;

/** The exposition writer, and the strict parser the endpoint tests rely on, against each other and alone. */
class MetricsTextFormatTest {

    @Test
    void labelValuesEscapeBackslashQuoteAndLineFeedAndHelpEscapesBackslashAndLineFeed() {
        StringBuilder text = new StringBuilder();
        new PrometheusText(text)
                .family("a_total", Type.COUNTER, "says \"x\\y\"\nthen more")
                .sample(3, "path", "C:\\dir \"q\"\nnext");

        assertEquals(
                "# HELP a_total says \"x\\\\y\"\\nthen more\n"
                        + "# TYPE a_total counter\n"
                        + "a_total{path=\"C:\\\\dir \\\"q\\\"\\nnext\"} 3\n",
                text.toString());
        ExpositionParser.Exposition parsed = ExpositionParser.parse(text.toString());
        assertEquals(3, parsed.value("a_total", "path", "C:\\dir \"q\"\nnext"));
        assertEquals("says \"x\\y\"\nthen more", parsed.help().get("a_total"));
    }

    @Test
    void valuesAreIntegersWhenWholeAndSpecialValuesAreSpelledAsTheFormatSays() {
        assertEquals("12", PrometheusText.format(12.0));
        assertEquals("0.25", PrometheusText.format(0.25));
        assertEquals("+Inf", PrometheusText.format(Double.POSITIVE_INFINITY));
        assertEquals("-Inf", PrometheusText.format(Double.NEGATIVE_INFINITY));
        assertEquals("NaN", PrometheusText.format(Double.NaN));
    }

    @Test
    void theWriterRefusesInvalidNamesCountersWithoutTotalAndFamiliesDeclaredTwice() {
        PrometheusText out = new PrometheusText(new StringBuilder());
        assertThrows(IllegalArgumentException.class, () -> out.family("1abc", Type.GAUGE, "h"));
        assertThrows(IllegalArgumentException.class, () -> out.family("a-b", Type.GAUGE, "h"));
        assertThrows(IllegalArgumentException.class, () -> out.family("requests", Type.COUNTER, "h"));
        out.family("ok", Type.GAUGE, "h");
        assertThrows(IllegalArgumentException.class, () -> out.family("ok", Type.GAUGE, "h"));
        assertThrows(IllegalArgumentException.class, () -> out.sample(1, "bad-label", "v"));
        assertThrows(IllegalArgumentException.class, () -> out.sample(1, "__reserved", "v"));
        assertThrows(IllegalArgumentException.class, () -> out.sample(1, "odd"));
    }

    @Test
    void theParserRefusesWhatTheFormatDoesNotAllow() {
        String help = "# HELP a_total h\n# TYPE a_total counter\n";
        ExpositionParser.parse(help + "a_total 1\n");
        assertRefused(help + "a_total 1"); // no final line feed
        assertRefused("a_total 1\n"); // no HELP and TYPE
        assertRefused("# TYPE a_total counter\n# HELP a_total h\na_total 1\n"); // TYPE before HELP
        assertRefused("# HELP a h\n# TYPE a counter\na 1\n"); // a counter without _total
        assertRefused(help + "b_total 1\n"); // a sample of another family
        assertRefused(help + "a_total{x=\"1\",x=\"2\"} 1\n"); // a label twice
        assertRefused(help + "a_total{x=\"a\"b\"} 1\n"); // an unescaped quote
        assertRefused(help + "a_total{x=\"\\t\"} 1\n"); // an escape the format does not have
        assertRefused(help + "a_total one\n"); // not a number
        assertRefused(help + "a_total 1\na_total 2\n"); // a series twice
        assertRefused(help + "a_total 1\n\n"); // an empty line
        assertRefused(help + "a_total 1\n# HELP b h\n# TYPE b gauge\nb 1\na_total{x=\"1\"} 1\n"); // not contiguous
    }

    private static void assertRefused(String text) {
        assertThrows(IllegalArgumentException.class, () -> ExpositionParser.parse(text), text);
    }
}
