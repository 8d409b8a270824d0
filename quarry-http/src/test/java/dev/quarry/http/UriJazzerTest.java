package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.quarry.http.internal.HttpChars;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * Coverage-guided fuzz target for request-target parsing and path normalisation (Jazzer), replayed from
 * {@code src/test/resources/dev/quarry/http/UriJazzerTestInputs/} by {@code mvn verify}.
 *
 * <p>Input layout: byte 0 holds flags (bits 0-1: the method, GET, POST, CONNECT or OPTIONS; bits 2-3: the compliance,
 * STRICT, LEGACY or everything allowed), the rest is the request target in ISO-8859-1, as the parser hands it over.
 */
class UriJazzerTest {
    private static final String[] METHODS = {"GET", "POST", "CONNECT", "OPTIONS"};
    private static final UriCompliance ALL = UriCompliance.of("ALL", EnumSet.allOf(UriCompliance.Violation.class));
    private static final UriCompliance[] COMPLIANCES = {UriCompliance.STRICT, UriCompliance.LEGACY, ALL, ALL};

    /**
     * Any target: parsing either succeeds or throws {@link BadMessageException}; a parsed origin-form path is the
     * normalised raw path; a normalised path never climbs above the root; without percent-encoding it is what a plain
     * reading of RFC 3986 §5.2.4 gives; and unless encoded slashes are allowed it has no dot segment left.
     */
    @FuzzTest
    void targetsParseOrFailCleanly(byte[] input) {
        if (input.length < 1) {
            return;
        }
        String method = METHODS[input[0] & 3];
        UriCompliance compliance = COMPLIANCES[(input[0] >> 2) & 3];
        String target = new String(input, 1, input.length - 1, StandardCharsets.ISO_8859_1);
        HttpUri uri;
        try {
            uri = HttpUri.parse(method, target, compliance);
        } catch (BadMessageException rejected) {
            assertEquals(400, rejected.status(), rejected::toString);
            uri = null;
        }
        if (uri != null && uri.form() == HttpUri.Form.ORIGIN) {
            assertEquals(target, uri.rawPath() + uri.query().map(q -> "?" + q).orElse(""));
            assertEquals(UriPath.decode(uri.rawPath(), compliance), uri.path());
        }
        if (!target.startsWith("/")) {
            return;
        }
        String path;
        try {
            path = UriPath.decode(target, compliance);
        } catch (BadMessageException rejected) {
            assertEquals(400, rejected.status(), rejected::toString);
            path = null;
        }
        String reference = target.indexOf('%') < 0 ? removeDotSegments(target) : null;
        if (path == null) {
            return;
        }
        assertTrue(path.startsWith("/"), path);
        if (target.indexOf('%') < 0) {
            if (reference == null) {
                fail("accepted a path that climbs above the root: " + HttpChars.quote(target) + " -> " + path);
            }
            assertEquals(reference, path, () -> "normalising " + HttpChars.quote(target));
        }
        if (!compliance.allows(UriCompliance.Violation.ENCODED_SLASH)) {
            for (String segment : path.split("/", -1)) {
                if (segment.equals(".") || segment.equals("..")) {
                    fail("a dot segment survived in " + HttpChars.quote(path) + " from " + HttpChars.quote(target));
                }
            }
        }
    }

    /**
     * RFC 3986 §5.2.4 on the segments between slashes, written independently of {@link UriPath}: {@code .} goes,
     * {@code ..} removes the segment before it, and a trailing dot segment leaves a trailing slash.
     *
     * @return the normalised path, or null where {@code ..} would climb above the root (which the RFC clamps and a
     *     server must refuse)
     */
    private static String removeDotSegments(String path) {
        String[] segments = path.substring(1).split("/", -1);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < segments.length; i++) {
            boolean last = i == segments.length - 1;
            String segment = segments[i];
            if (segment.equals("..")) {
                if (out.isEmpty()) {
                    return null;
                }
                out.remove(out.size() - 1);
            }
            if (segment.equals(".") || segment.equals("..")) {
                if (last) {
                    out.add("");
                }
            } else {
                out.add(segment);
            }
        }
        return "/" + String.join("/", out);
    }
}
