package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 9110 §13: If-None-Match and If-Modified-Since give 304, If-Match and If-Unmodified-Since give 412. */
class ConditionalRequestsTest extends StaticFilesTestSupport {
    private String etag;

    @BeforeEach
    void serveAFile() throws IOException {
        write("page.html", "<p>content</p>");
        start(StaticFiles.builder(root).cacheControl("max-age=60"));
        etag = get("/page.html").header("ETag");
    }

    private void assertNotModified(Reply reply) {
        assertEquals(304, reply.status(), reply.toString());
        assertEquals(0, reply.body().length, "no body");
        assertEquals(etag, reply.header("ETag"));
        assertEquals(MODIFIED_HTTP, reply.header("Last-Modified"));
        assertEquals("max-age=60", reply.header("Cache-Control"));
        assertNull(reply.header("Content-Encoding"));
        // RFC 9110 §8.6: a 304 may only carry the Content-Length of the 200 it stands for.
        assertEquals("14", reply.header("Content-Length"));
    }

    @Test
    void aMatchingEtagIsNotModified() throws Exception {
        assertNotModified(get("/page.html", "If-None-Match: " + etag));
    }

    @Test
    void aMatchingEtagInAListIsNotModified() throws Exception {
        assertNotModified(get("/page.html", "If-None-Match: \"other\", " + etag + " , \"third\""));
        assertNotModified(get("/page.html", "If-None-Match: \"other\"", "If-None-Match: " + etag));
    }

    @Test
    void ifNoneMatchComparesWeakly() throws Exception {
        assertNotModified(get("/page.html", "If-None-Match: W/" + etag));
    }

    @Test
    void ifNoneMatchStarMatchesAnExistingFile() throws Exception {
        assertNotModified(get("/page.html", "If-None-Match: *"));
    }

    @Test
    void aDifferentEtagServesTheContent() throws Exception {
        Reply reply = get("/page.html", "If-None-Match: \"something-else\", W/\"x\"");
        assertEquals(200, reply.status());
        assertEquals("<p>content</p>", reply.text());
    }

    @Test
    void aMalformedIfNoneMatchServesTheContent() throws Exception {
        assertEquals(200, get("/page.html", "If-None-Match: no-quotes").status());
    }

    @Test
    void headIsNotModifiedToo() throws Exception {
        assertNotModified(head("/page.html", "If-None-Match: " + etag));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                MODIFIED_HTTP,
                "Tue, 02 Jan 2024 03:04:06 GMT",
                "Wed, 01 Jan 2025 00:00:00 GMT",
                "Tuesday, 02-Jan-24 03:04:05 GMT",
                "Tue Jan  2 03:04:05 2024"
            })
    void ifModifiedSinceAtOrAfterTheFileTimeIsNotModified(String date) throws Exception {
        assertNotModified(get("/page.html", "If-Modified-Since: " + date));
    }

    @Test
    void ifModifiedSinceBeforeTheFileTimeServesTheContent() throws Exception {
        assertEquals(
                200,
                get("/page.html", "If-Modified-Since: Tue, 02 Jan 2024 03:04:04 GMT")
                        .status());
    }

    @Test
    void anInvalidIfModifiedSinceIsIgnored() throws Exception {
        assertEquals(200, get("/page.html", "If-Modified-Since: yesterday").status());
        assertEquals(
                200,
                get("/page.html", "If-Modified-Since: Tue, 31 Feb 2024 03:04:05 GMT")
                        .status());
    }

    @Test
    void ifNoneMatchTakesPrecedenceOverIfModifiedSince() throws Exception {
        // The date alone would say "not modified"; the tag says the client's copy is another one.
        Reply reply = get("/page.html", "If-None-Match: \"stale\"", "If-Modified-Since: Wed, 01 Jan 2025 00:00:00 GMT");
        assertEquals(200, reply.status());
        // And a matching tag wins over a date that alone would say "modified".
        assertNotModified(
                get("/page.html", "If-None-Match: " + etag, "If-Modified-Since: Mon, 01 Jan 2024 00:00:00 GMT"));
    }

    @Test
    void ifMatchWithAnotherEtagFailsThePrecondition() throws Exception {
        Reply reply = get("/page.html", "If-Match: \"other\"");
        assertEquals(412, reply.status());
        assertEquals("412 Precondition Failed\n", reply.text());
    }

    @Test
    void ifMatchComparesStrongly() throws Exception {
        assertEquals(412, get("/page.html", "If-Match: W/" + etag).status());
        assertEquals(200, get("/page.html", "If-Match: " + etag).status());
        assertEquals(200, get("/page.html", "If-Match: *").status());
    }

    @Test
    void ifUnmodifiedSinceBeforeTheFileTimeFailsThePrecondition() throws Exception {
        assertEquals(
                412,
                get("/page.html", "If-Unmodified-Since: Mon, 01 Jan 2024 00:00:00 GMT")
                        .status());
        assertEquals(
                200, get("/page.html", "If-Unmodified-Since: " + MODIFIED_HTTP).status());
    }

    @Test
    void ifMatchTakesPrecedenceOverIfUnmodifiedSince() throws Exception {
        assertEquals(
                200,
                get("/page.html", "If-Match: " + etag, "If-Unmodified-Since: Mon, 01 Jan 2024 00:00:00 GMT")
                        .status());
    }

    @Test
    void preconditionsComeBeforeRanges() throws Exception {
        assertEquals(
                412,
                get("/page.html", "If-Match: \"other\"", "Range: bytes=0-1").status());
        assertNotModified(get("/page.html", "If-None-Match: " + etag, "Range: bytes=0-1"));
    }
}
