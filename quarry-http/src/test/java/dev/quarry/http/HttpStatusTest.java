package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HttpStatusTest {

    @Test
    void reasonPhrases() {
        assertEquals("OK", HttpStatus.reason(200));
        assertEquals("Request Header Fields Too Large", HttpStatus.reason(431));
        assertEquals("", HttpStatus.reason(-1));
        assertEquals("", HttpStatus.reason(1000));
    }

    @Test
    void aCodeWithoutAPhraseOfItsOwnIsNamedByItsClass() {
        assertEquals("Informational", HttpStatus.reason(199));
        assertEquals("Success", HttpStatus.reason(299));
        assertEquals("Redirection", HttpStatus.reason(399));
        assertEquals("Client Error", HttpStatus.reason(499));
        assertEquals("Server Error", HttpStatus.reason(599));
        for (int code = 100; code <= 599; code++) {
            assertFalse(HttpStatus.reason(code).isEmpty(), "" + code);
        }
    }

    @Test
    void statusesWithoutBody() {
        for (int code : new int[] {100, 101, 103, 199, 204, 304}) {
            assertTrue(HttpStatus.hasNoBody(code), "" + code);
        }
        for (int code : new int[] {200, 205, 206, 301, 400, 500}) {
            assertFalse(HttpStatus.hasNoBody(code), "" + code);
        }
    }

    @Test
    void classes() {
        assertTrue(HttpStatus.isInformational(100)
                && HttpStatus.isSuccess(204)
                && HttpStatus.isClientError(404)
                && HttpStatus.isServerError(503));
        assertFalse(HttpStatus.isValid(99) || HttpStatus.isValid(600));
    }

    @Test
    void exceptionsCarryAnErrorStatusAndAReason() {
        BadMessageException x = new BadMessageException(431, "too many fields");
        assertEquals(431, x.status());
        assertEquals("too many fields", x.reason());
        assertEquals("431 Request Header Fields Too Large: too many fields", x.getMessage());
        assertEquals(400, new BadMessageException("bad").status());
        assertThrows(IllegalArgumentException.class, () -> new HttpException(200, "not an error"));
    }
}
