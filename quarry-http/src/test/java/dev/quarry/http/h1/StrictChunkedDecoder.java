package dev.quarry.http.h1;

import dev.quarry.http.HttpHeader;
import java.util.Optional;

/**
 * A reference decoder of chunked content, written from the grammar of RFC 9112 §7.1 and RFC 9110 §5.6 only, for the
 * smuggling check of {@link HttpParserJazzerTest}: it shares no code with the parser. It is deliberately naive (index
 * walking over the whole input) so that it is easy to check against the RFC by reading.
 *
 * <pre>
 * chunked-body   = *chunk last-chunk trailer-section CRLF
 * chunk          = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
 * chunk-size     = 1*HEXDIG                  ; Quarry: at most 16 digits, fits a positive long
 * last-chunk     = 1*("0") [ chunk-ext ] CRLF
 * chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
 * chunk-ext-val  = token / quoted-string
 * trailer-section = *( field-line CRLF )
 * field-line     = field-name ":" OWS field-value OWS
 * </pre>
 *
 * The parser's documented policies that go beyond the grammar are applied too: the chunk extension length limit, and
 * the fields forbidden in a trailer (RFC 9110 §6.5.1).
 */
final class StrictChunkedDecoder {
    private static final int MAX_DIGITS = 16;

    private StrictChunkedDecoder() {}

    /** What the decoder found. */
    sealed interface Result permits Accepted, Rejected, Incomplete {}

    /** A complete chunked body: its decoded content (ISO-8859-1) and how many input bytes it took. */
    record Accepted(String content, int length) implements Result {}

    /** Not a chunked body, and no more bytes can make it one. */
    record Rejected(String why) implements Result {}

    /** A valid prefix of a chunked body. */
    record Incomplete() implements Result {}

    private static final class Reject extends RuntimeException {
        Reject(String why) {
            super(why, null, false, false);
        }
    }

    private static final class NeedMore extends RuntimeException {
        NeedMore() {
            super(null, null, false, false);
        }
    }

    static Result decode(byte[] b, HttpParserConfig config) {
        try {
            return new Walker(b, config.maxChunkExtensionLength()).body();
        } catch (Reject x) {
            return new Rejected(x.getMessage());
        } catch (NeedMore x) {
            return new Incomplete();
        }
    }

    private static final class Walker {
        final byte[] b;
        final int maxExtension;
        int i;

        Walker(byte[] b, int maxExtension) {
            this.b = b;
            this.maxExtension = maxExtension;
        }

        Result body() {
            StringBuilder content = new StringBuilder();
            while (true) {
                long size = chunkSize();
                int extensionStart = i;
                chunkExtensions();
                if (i - extensionStart > maxExtension) {
                    throw new Reject("chunk extension too long");
                }
                crlf();
                if (size == 0) {
                    break;
                }
                if (b.length - i < size) {
                    throw new NeedMore();
                }
                for (int k = 0; k < size; k++) {
                    content.append((char) (b[i + k] & 0xFF));
                }
                i += (int) size;
                crlf();
            }
            while (true) {
                need(1);
                if (b[i] == '\r') {
                    crlf();
                    return new Accepted(content.toString(), i);
                }
                fieldLine();
                crlf();
            }
        }

        long chunkSize() {
            long size = 0;
            int digits = 0;
            while (true) {
                need(1);
                int digit = Character.digit(b[i] & 0xFF, 16);
                if (digit < 0 || (b[i] & 0xFF) > 'f') {
                    break;
                }
                if (++digits > MAX_DIGITS) {
                    throw new Reject("more than 16 digits");
                }
                size = size * 16 + digit;
                i++;
            }
            if (digits == 0) {
                throw new Reject("no chunk size");
            }
            if (size < 0) {
                throw new Reject("chunk size overflows");
            }
            return size;
        }

        void chunkExtensions() {
            while (true) {
                int at = skipBws(i);
                need(at - i + 1);
                if (b[at] != ';') {
                    return; // any whitespace before it is then not followed by CRLF: rejected by crlf()
                }
                at = skipBws(at + 1);
                int nameEnd = token(at);
                if (nameEnd == at) {
                    throw new Reject("no extension name");
                }
                i = nameEnd;
                int afterName = skipBws(nameEnd);
                need(afterName - i + 1);
                if (b[afterName] == '=') {
                    int value = skipBws(afterName + 1);
                    need(value - i + 1);
                    if (b[value] == '"') {
                        i = quotedString(value);
                    } else {
                        int valueEnd = token(value);
                        if (valueEnd == value) {
                            throw new Reject("no extension value");
                        }
                        i = valueEnd;
                    }
                }
            }
        }

        int quotedString(int at) {
            for (at++; ; at++) {
                if (at >= b.length) {
                    throw new NeedMore();
                }
                int c = b[at] & 0xFF;
                if (c == '"') {
                    return at + 1;
                }
                if (c == '\\') {
                    at++;
                    if (at >= b.length) {
                        throw new NeedMore();
                    }
                    int escaped = b[at] & 0xFF;
                    if (!(escaped == '\t' || escaped == ' ' || isVchar(escaped) || escaped >= 0x80)) {
                        throw new Reject("bad quoted-pair");
                    }
                } else if (!(c == '\t'
                        || c == ' '
                        || c == 0x21
                        || (c >= 0x23 && c <= 0x5B)
                        || (c >= 0x5D && c <= 0x7E)
                        || c >= 0x80)) {
                    throw new Reject("bad qdtext");
                }
            }
        }

        void fieldLine() {
            int nameEnd = token(i);
            if (nameEnd == i) {
                throw new Reject("no field name (or obs-fold)");
            }
            need(nameEnd - i + 1);
            if (b[nameEnd] != ':') {
                throw new Reject("no colon after the field name");
            }
            String name = new String(b, i, nameEnd - i, java.nio.charset.StandardCharsets.ISO_8859_1);
            Optional<HttpHeader> known = HttpHeader.lookup(name);
            if (known.isPresent() && known.get().isForbiddenInTrailer()) {
                throw new Reject("forbidden in a trailer");
            }
            i = nameEnd + 1;
            // field-value = *field-content, with the OWS around it: SP, HTAB, VCHAR, obs-text up to CR.
            while (true) {
                need(1);
                int c = b[i] & 0xFF;
                if (c == '\r') {
                    return;
                }
                if (!(c == ' ' || c == '\t' || isVchar(c) || c >= 0x80)) {
                    throw new Reject("bad field value octet " + c);
                }
                i++;
            }
        }

        void crlf() {
            need(1);
            if (b[i] != '\r') {
                throw new Reject("no CR");
            }
            need(2);
            if (b[i + 1] != '\n') {
                throw new Reject("CR without LF");
            }
            i += 2;
        }

        int skipBws(int at) {
            while (at < b.length && (b[at] == ' ' || b[at] == '\t')) {
                at++;
            }
            return at;
        }

        int token(int at) {
            while (at < b.length && isTchar(b[at] & 0xFF)) {
                at++;
            }
            if (at == b.length) {
                throw new NeedMore();
            }
            return at;
        }

        void need(int count) {
            if (b.length - i < count) {
                throw new NeedMore();
            }
        }

        static boolean isVchar(int c) {
            return c >= 0x21 && c <= 0x7E;
        }

        // tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT /
        // ALPHA
        static boolean isTchar(int c) {
            return (c >= '0' && c <= '9')
                    || (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        }
    }
}
