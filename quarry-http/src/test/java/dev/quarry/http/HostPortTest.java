package dev.quarry.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class HostPortTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "example.com|example.com|-1",
                "example.com:8080|example.com|8080",
                "127.0.0.1:0|127.0.0.1|0",
                "[::1]|[::1]|-1",
                "[2001:db8::7]:65535|[2001:db8::7]|65535",
                "[::ffff:192.0.2.1]:80|[::ffff:192.0.2.1]|80",
                "[v1.fe80::a+b]:1|[v1.fe80::a+b]|1",
                "h:|h|-1",
                "ex%41mple|ex%41mple|-1",
            })
    void parsesHostAndPort(String text, String host, int port) {
        assertEquals(new HostPort(host, port), HostPort.parse(text));
        assertTrue(HostPort.isValid(text));
    }

    @Test
    void emptyHostIsValidForTheHostField() {
        assertTrue(HostPort.isValid(""));
        assertEquals(OptionalInt.empty(), HostPort.parse("").optionalPort());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "a b",
                "a/b",
                "u@h",
                "h:99999",
                "h:123456",
                "h:8o",
                "h:-1",
                "[::1",
                "[::1]x",
                "[]",
                "[zz]",
                "[v1]",
                "[vx.a]",
                "h%2",
                "h%zz",
                "h\u0000",
                "\u00e9"
            })
    void rejectsInvalidAuthorities(String text) {
        assertFalse(HostPort.isValid(text), text);
    }

    @Test
    void toStringRoundTrips() {
        assertEquals("h:80", HostPort.parse("h:80").toString());
        assertEquals("h", HostPort.parse("h").toString());
    }
}
