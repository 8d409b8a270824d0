package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HttpMethodTest {

    @Test
    void everyMethodIsFoundFromBytes() {
        for (HttpMethod method : HttpMethod.values()) {
            byte[] line = (method.asString() + " / HTTP/1.1").getBytes(StandardCharsets.US_ASCII);
            assertSame(
                    method,
                    HttpMethod.lookup(line, 0, method.asString().length()).orElseThrow());
            assertSame(method, HttpMethod.lookup(method.asString()).orElseThrow());
        }
    }

    @Test
    void methodsAreCaseSensitiveAndUnknownTokensAreEmpty() {
        for (String token : new String[] {"get", "Get", "GOT", "POS", "PATCHX", "PROPFIND", "", "DELETX", "HEAP"}) {
            byte[] b = token.getBytes(StandardCharsets.US_ASCII);
            assertEquals(Optional.empty(), HttpMethod.lookup(b, 0, b.length), token);
            assertEquals(Optional.empty(), HttpMethod.lookup(token), token);
        }
    }

    @Test
    void safetyAndIdempotence() {
        assertTrue(HttpMethod.GET.isSafe() && HttpMethod.HEAD.isSafe() && HttpMethod.OPTIONS.isSafe());
        assertFalse(HttpMethod.POST.isSafe() || HttpMethod.PUT.isSafe() || HttpMethod.DELETE.isSafe());
        assertTrue(HttpMethod.PUT.isIdempotent() && HttpMethod.DELETE.isIdempotent());
        assertFalse(
                HttpMethod.POST.isIdempotent() || HttpMethod.PATCH.isIdempotent() || HttpMethod.CONNECT.isIdempotent());
    }

    @Test
    void namesAreInterned() {
        assertSame("GET", HttpMethod.GET.asString());
    }
}
