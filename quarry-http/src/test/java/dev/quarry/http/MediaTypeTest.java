package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MediaTypeTest {

    @Test
    void parsesTypeSubtypeAndParametersCaseInsensitively() {
        MediaType type = MediaType.parse("Multipart/Form-Data; Boundary=\"a b\\\"c\" ;charset=UTF-8");
        assertEquals("multipart", type.type());
        assertEquals("form-data", type.subtype());
        assertTrue(type.is("multipart/form-data"));
        assertTrue(type.is("MULTIPART/FORM-DATA"));
        assertEquals(Optional.of("a b\"c"), type.parameter("boundary"));
        assertEquals(Optional.of(StandardCharsets.UTF_8), type.charset());
        assertEquals("multipart/form-data; boundary=\"a b\\\"c\"; charset=UTF-8", type.toString());
    }

    @Test
    void toleratesEmptyParametersAndWhitespace() {
        MediaType type = MediaType.parse(" text/plain ;; charset=utf-8 ;");
        assertTrue(type.is("text/plain"));
        assertEquals(Optional.of("utf-8"), type.parameter("CHARSET"));
    }

    @Test
    void rejectsMalformedMediaTypes() {
        for (String value : new String[] {
            "",
            "text",
            "/plain",
            "text/",
            "te xt/plain",
            "text/plain; charset",
            "text/plain; =x",
            "text/plain; a=\"open",
            "text/plain; a=b c",
            "text/plain x"
        }) {
            BadMessageException x = assertThrows(BadMessageException.class, () -> MediaType.parse(value), value);
            assertEquals(400, x.status());
        }
    }

    @Test
    void anUnknownCharsetIs415() {
        HttpException x = assertThrows(
                HttpException.class,
                () -> MediaType.parse("text/plain; charset=no-such-charset").charset());
        assertEquals(415, x.status());
        assertTrue(x.reason().contains("no-such-charset"), x::reason);
    }
}
