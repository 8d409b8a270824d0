package dev.quarry.http.h1;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HostPort;
import dev.quarry.http.HttpCompliance;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.internal.HttpChars;

/**
 * The header fields of a request that decide how it is framed, routed and whether its connection persists:
 * Content-Length, Transfer-Encoding, Host, Connection and Expect, checked as they arrive and once more when the header
 * section is complete (RFC 9112 §6.1-6.3, §3.2, §9.3; RFC 9110 §8.6).
 *
 * <p>Every check here fails closed: when two components could disagree on where a message ends, the message is
 * rejected (request smuggling, RFC 9112 §11.2).
 *
 * <p>Thread-safety: confined to its parser's thread; {@link #reset()} between messages.
 */
final class MessageFraming {
    private long contentLength;
    private boolean contentLengthSeen;
    private boolean transferEncodingSeen;
    private int chunkedCount;
    private boolean chunkedLast;
    private String unsupportedCoding;
    private int hostCount;
    private boolean close;
    private boolean keepAlive;
    private boolean expectContinue;

    MessageFraming() {
        reset();
    }

    void reset() {
        contentLength = -1;
        contentLengthSeen = false;
        transferEncodingSeen = false;
        chunkedCount = 0;
        chunkedLast = false;
        unsupportedCoding = null;
        hostCount = 0;
        close = false;
        keepAlive = false;
        expectContinue = false;
    }

    /**
     * Checks one header field.
     *
     * @param header the field's well-known header, not null
     * @param field the field
     * @param cached whether the field came from the field cache, where only validated values are
     * @param version the request's version
     * @param compliance the leniencies allowed
     * @throws BadMessageException naming the problem
     */
    void onHeader(HttpHeader header, HttpField field, boolean cached, HttpVersion version, HttpCompliance compliance) {
        switch (header) {
            case CONTENT_LENGTH -> onContentLength(field.value(), compliance);
            case TRANSFER_ENCODING -> {
                if (version == HttpVersion.HTTP_1_0) {
                    // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
                    throw new BadMessageException(
                            "Transfer-Encoding in an HTTP/1.0 request: " + HttpChars.quote(field.value()));
                }
                onTransferEncoding(field.value());
            }
            case HOST -> {
                if (++hostCount > 1) {
                    throw new BadMessageException("more than one Host field: " + HttpChars.quote(field.value()));
                }
                if (!cached) {
                    HostPort.validate(field.value()); // 400 "invalid ... in host" naming the value
                }
            }
            case CONNECTION -> {
                String value = field.value();
                if (value.equalsIgnoreCase("keep-alive")) { // the common single tokens skip the list scan
                    keepAlive = true;
                } else if (value.equalsIgnoreCase("close")) {
                    close = true;
                } else {
                    close |= field.containsToken("close");
                    keepAlive |= field.containsToken("keep-alive");
                }
            }
            // RFC 9110 §10.1.1: a server MUST ignore a 100-continue expectation in an HTTP/1.0 request.
            case EXPECT ->
                expectContinue |=
                        version != HttpVersion.HTTP_1_0 && field.value().equalsIgnoreCase("100-continue");
            default -> {}
        }
    }

    // Content-Length = 1*DIGIT (RFC 9110 §8.6). A list of identical values ("5, 5") or repeated identical lines may
    // be folded into one value only when the violation is allowed; different values are always rejected.
    private void onContentLength(String value, HttpCompliance compliance) {
        int length = value.length();
        int start = 0;
        boolean list = false;
        while (true) {
            int comma = value.indexOf(',', start);
            int end = comma < 0 ? length : comma;
            int s = start;
            int e = end;
            if (comma >= 0 || list) {
                list = true;
                while (s < e && HttpChars.isWhitespace(value.charAt(s))) {
                    s++;
                }
                while (e > s && HttpChars.isWhitespace(value.charAt(e - 1))) {
                    e--;
                }
            }
            long parsed = parseDigits(value, s, e);
            if (contentLengthSeen) {
                if (parsed != contentLength) {
                    throw new BadMessageException(
                            "conflicting Content-Length values: " + contentLength + " and " + HttpChars.quote(value));
                }
                if (!compliance.allows(HttpCompliance.Violation.DUPLICATE_IDENTICAL_CONTENT_LENGTH)) {
                    throw new BadMessageException(
                            "duplicate Content-Length (" + violation() + "): " + HttpChars.quote(value));
                }
            }
            contentLengthSeen = true;
            contentLength = parsed;
            if (comma < 0) {
                return;
            }
            start = comma + 1;
        }
    }

    private static String violation() {
        HttpCompliance.Violation v = HttpCompliance.Violation.DUPLICATE_IDENTICAL_CONTENT_LENGTH;
        return v.name() + ", " + v.rfcSection();
    }

    private static long parseDigits(String value, int from, int to) {
        if (from == to) {
            throw new BadMessageException("empty Content-Length: " + HttpChars.quote(value));
        }
        if (to - from > 18) {
            throw new BadMessageException("Content-Length too large: " + HttpChars.quote(value));
        }
        long result = 0;
        for (int i = from; i < to; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                throw new BadMessageException("invalid Content-Length, " + HttpChars.describe(c) + " is not a digit: "
                        + HttpChars.quote(value));
            }
            result = result * 10 + (c - '0');
        }
        return result;
    }

    // Transfer-Encoding = #transfer-coding; transfer-coding = token *( OWS ";" OWS transfer-parameter ).
    // Decided in complete(): chunked must be the final coding, once (400); any other coding is not implemented (501).
    private void onTransferEncoding(String value) {
        transferEncodingSeen = true;
        int length = value.length();
        boolean any = false;
        int start = 0;
        while (start <= length) {
            int comma = value.indexOf(',', start);
            int end = comma < 0 ? length : comma;
            int s = start;
            int e = end;
            while (s < e && HttpChars.isWhitespace(value.charAt(s))) {
                s++;
            }
            while (e > s && HttpChars.isWhitespace(value.charAt(e - 1))) {
                e--;
            }
            if (s < e) { // empty list elements are ignored (RFC 9110 §5.6.1)
                any = true;
                int semicolon = value.indexOf(';', s);
                int nameEnd = semicolon < 0 || semicolon > e ? e : semicolon;
                while (nameEnd > s && HttpChars.isWhitespace(value.charAt(nameEnd - 1))) {
                    nameEnd--;
                }
                if (nameEnd == s || !HttpChars.isToken(value.subSequence(s, nameEnd))) {
                    throw new BadMessageException(
                            "invalid transfer coding in Transfer-Encoding: " + HttpChars.quote(value));
                }
                if (nameEnd - s == 7 && value.regionMatches(true, s, "chunked", 0, 7)) {
                    if (nameEnd != e) {
                        throw new BadMessageException("chunked takes no parameters: " + HttpChars.quote(value));
                    }
                    chunkedCount++;
                    chunkedLast = true;
                } else {
                    chunkedLast = false;
                    if (unsupportedCoding == null) {
                        unsupportedCoding = value.substring(s, nameEnd);
                    }
                }
            }
            if (comma < 0) {
                break;
            }
            start = comma + 1;
        }
        if (!any) {
            throw new BadMessageException("empty Transfer-Encoding");
        }
    }

    /**
     * Decides the framing once the header section is complete.
     *
     * @param version the request's version
     * @param maxContentLength the largest content accepted
     * @throws BadMessageException 400, 413 or 501 naming the problem
     */
    void complete(HttpVersion version, long maxContentLength) {
        checkTransferEncoding();
        if (version == HttpVersion.HTTP_1_1 && hostCount == 0) {
            throw new BadMessageException("missing Host field in HTTP/1.1 request");
        }
        checkContentLength(maxContentLength);
    }

    /**
     * Decides the framing of a response once its header section is complete: like a request's, without the Host rule.
     * A response whose transfer coding is not chunked alone is rejected too (RFC 9112 §6.3 would read it until the
     * connection closes, but this client could not decode it).
     *
     * @param maxContentLength the largest content accepted
     * @throws BadMessageException naming the problem
     */
    void completeResponse(long maxContentLength) {
        checkTransferEncoding();
        checkContentLength(maxContentLength);
    }

    private void checkTransferEncoding() {
        if (transferEncodingSeen) {
            if (contentLengthSeen) {
                // RFC 9112 §6.1 allows either rejecting or ignoring Content-Length; ignoring it is how CL.TE and TE.CL
                // smuggling works when a proxy picks the other one.
                throw new BadMessageException("both Content-Length and Transfer-Encoding");
            }
            if (chunkedCount > 1) {
                throw new BadMessageException("chunked applied more than once in Transfer-Encoding");
            }
            if (!chunkedLast) {
                // RFC 9112 §6.3: chunked not final means the length cannot be determined: 400.
                throw new BadMessageException("chunked is not the final transfer coding"
                        + (unsupportedCoding == null ? "" : ": " + HttpChars.quote(unsupportedCoding)));
            }
            if (unsupportedCoding != null) {
                throw new BadMessageException(
                        HttpStatus.NOT_IMPLEMENTED_501,
                        "unsupported transfer coding: " + HttpChars.quote(unsupportedCoding));
            }
        }
    }

    private void checkContentLength(long maxContentLength) {
        if (contentLength > maxContentLength) {
            throw new BadMessageException(
                    HttpStatus.CONTENT_TOO_LARGE_413,
                    "Content-Length " + contentLength + " exceeds the limit of " + maxContentLength);
        }
    }

    /** @return whether the content is chunked; valid after {@link #complete} */
    boolean chunked() {
        return transferEncodingSeen;
    }

    /** @return the declared Content-Length, or -1 */
    long contentLength() {
        return contentLength;
    }

    /** @return whether the connection persists after this request, by version and Connection tokens */
    boolean persistent(HttpVersion version) {
        if (close) {
            return false;
        }
        return version.persistentByDefault() || keepAlive;
    }

    /** @return whether the request carries {@code Expect: 100-continue} */
    boolean expectContinue() {
        return expectContinue;
    }

    @Override
    public String toString() {
        return "MessageFraming{contentLength=" + contentLength + ", chunked=" + transferEncodingSeen + ", hosts="
                + hostCount + ", close=" + close + ", keepAlive=" + keepAlive + "}";
    }
}
