package dev.quarry.http.h1;

import java.util.List;

/** Valid test messages, each exercising one feature; every one must parse identically at every split point. */
final class Messages {
    private Messages() {}

    record Message(String name, String text) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** About 6 KiB of fields, one value of 2.5 KiB: lines that straddle and exceed {@link LineReader#WINDOW}. */
    static String largeHeaderSection() {
        StringBuilder message = new StringBuilder("POST /big HTTP/1.1\r\nHost: h\r\n");
        for (int i = 0; i < 50; i++) {
            message.append("X-Field-")
                    .append(i)
                    .append(": value-")
                    .append("v".repeat(i))
                    .append("\r\n");
        }
        message.append("X-Long: ").append("L".repeat(2500)).append("\r\nContent-Length: 4\r\n\r\nbody");
        return message.toString();
    }

    static final List<Message> VALID = List.of(
            new Message("origin-form GET", "GET /index.html?q=1&r=%2F HTTP/1.1\r\nHost: example.com\r\n\r\n"),
            new Message(
                    "browser-like GET",
                    "GET /path/to/page HTTP/1.1\r\nHost: www.example.com:8443\r\n"
                            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
                            + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
                            + "Accept-Language: en-US,en;q=0.5\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n"
                            + "Connection: keep-alive\r\nCookie: a=1; b=2\r\nUpgrade-Insecure-Requests: 1\r\n"
                            + "Sec-Fetch-Dest: document\r\nX-Custom: \tvalue with  spaces\t\r\n\r\n"),
            new Message(
                    "absolute-form", "GET http://example.com:8080/a/b?x=1 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n"),
            new Message("authority-form CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
            new Message("asterisk-form OPTIONS", "OPTIONS * HTTP/1.1\r\nHost: example.com\r\n\r\n"),
            new Message("IPv6 host", "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"),
            new Message("empty host", "GET / HTTP/1.1\r\nHost:\r\n\r\n"),
            new Message("unknown method", "PROPFIND /dav/ HTTP/1.1\r\nHost: h\r\nDepth: 1\r\n\r\n"),
            new Message(
                    "content-length body", "POST /form HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world"),
            new Message("zero content-length", "POST /empty HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"),
            new Message(
                    "chunked with extensions and trailers",
                    "POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "5;name=value\r\nhello\r\n"
                            + "6 ; q=\"a \\\"b\\\" c\" ; flag\r\n world\r\n"
                            + "0;last\r\nX-Checksum: abc\r\nX-Other:  1 \r\n\r\n"),
            new Message(
                    "chunked without trailers",
                    "PUT /f HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip-not, chunked\r\n".replace("gzip-not, ", "")
                            + "\r\nA\r\n0123456789\r\n0\r\n\r\n"),
            new Message(
                    "expect 100-continue",
                    "PUT /f HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok"),
            new Message("HTTP/1.0 without host", "GET / HTTP/1.0\r\n\r\n"),
            new Message("HTTP/1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: keep-alive\r\nHost: h\r\n\r\n"),
            new Message("leading empty lines", "\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"),
            new Message("obs-text value", "GET / HTTP/1.1\r\nHost: h\r\nX-Latin: caf\u00e9 \u00ff\r\n\r\n"),
            new Message(
                    "pipelined",
                    "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
                            + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
                            + "POST /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n"
                            + "GET /4 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"),
            new Message(
                    "upgrade h2c",
                    "GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                            + "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n"),
            new Message("header section larger than the direct-buffer window", largeHeaderSection()),
            new Message("http2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u0000\u0000\u0000\u0004\u0000"));
}
