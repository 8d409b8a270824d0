package dev.quarry.io;

import static dev.quarry.io.ProxyHeaders.concat;
import static dev.quarry.io.ProxyHeaders.tcp4;
import static dev.quarry.io.ProxyHeaders.tlv;
import static dev.quarry.io.ProxyHeaders.unix;
import static dev.quarry.io.ProxyHeaders.v1;
import static dev.quarry.io.ProxyHeaders.v2;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProxyHeaderParserTest {
    private static final int MAX = ProxyConnectionFactory.DEFAULT_MAX_HEADER_SIZE;

    /** Parses a header followed by a request, checking that its end is found exactly. */
    private static ProxyHeader parse(byte[] header) {
        byte[] bytes = concat(header, "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
        int length = ProxyHeaderParser.headerLength(bytes, bytes.length, MAX);
        assertEquals(header.length, length, "header length");
        return ProxyHeaderParser.parse(bytes, length);
    }

    private static BadProxyHeaderException reject(byte[] header) {
        return assertThrows(BadProxyHeaderException.class, () -> {
            int length = ProxyHeaderParser.headerLength(header, header.length, MAX);
            assertTrue(length > 0, "complete: " + length);
            ProxyHeaderParser.parse(header, length);
        });
    }

    private static InetSocketAddress inet(String address, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(address), port);
    }

    @Test
    void v1Tcp4CarriesTheClientAndTheDestination() throws Exception {
        ProxyHeader header = parse(v1("PROXY TCP4 192.0.2.7 198.51.100.1 56324 443\r\n"));
        assertEquals(1, header.version());
        assertEquals(ProxyHeader.Command.PROXY, header.command());
        assertEquals(Optional.of(inet("192.0.2.7", 56324)), header.source());
        assertEquals(Optional.of(inet("198.51.100.1", 443)), header.destination());
        assertEquals(List.of(), header.tlvs());
    }

    @Test
    void v1Tcp6CarriesIpv6Addresses() throws Exception {
        ProxyHeader header = parse(v1("PROXY TCP6 2001:db8::7 ::1 65535 0\r\n"));
        assertEquals(Optional.of(inet("2001:db8::7", 65535)), header.source());
        assertEquals(Optional.of(inet("::1", 0)), header.destination());
    }

    @Test
    void v1UnknownCarriesNoAddressWhateverFollows() {
        assertEquals(Optional.empty(), parse(v1("PROXY UNKNOWN\r\n")).source());
        assertEquals(
                Optional.empty(),
                parse(v1("PROXY UNKNOWN ffff:f::1 ::1 1 2\r\n")).source());
    }

    @Test
    void v2Tcp4WithEveryTlvTheIssueNames() throws Exception {
        byte[] ssl = concat(new byte[] {0x01, 0, 0, 0, 0}, tlv(ProxyHeader.SUBTYPE_SSL_VERSION, "TLSv1.3"));
        ssl = concat(ssl, tlv(ProxyHeader.SUBTYPE_SSL_CIPHER, "TLS_AES_128_GCM_SHA256"));
        byte[] header = v2(
                0x21,
                0x11,
                tcp4(new int[] {203, 0, 113, 9}, new int[] {10, 0, 0, 1}, 40000, 8443),
                tlv(ProxyHeader.TYPE_ALPN, "h2"),
                tlv(ProxyHeader.TYPE_NOOP, new byte[7]),
                tlv(ProxyHeader.TYPE_AUTHORITY, "example.org"),
                tlv(ProxyHeader.TYPE_UNIQUE_ID, new byte[] {1, 2, 3}),
                tlv(ProxyHeader.TYPE_SSL, ssl),
                tlv(0xE0, "custom"));
        ProxyHeader parsed = parse(header);
        assertEquals(2, parsed.version());
        assertEquals(Optional.of(inet("203.0.113.9", 40000)), parsed.source());
        assertEquals(Optional.of(inet("10.0.0.1", 8443)), parsed.destination());
        assertEquals(Optional.of("h2"), parsed.alpn());
        assertEquals(Optional.of("example.org"), parsed.authority());
        assertArrayEquals(new byte[] {1, 2, 3}, parsed.uniqueId().orElseThrow());
        ProxyHeader.Ssl tls = parsed.ssl().orElseThrow();
        assertTrue(tls.clientSsl());
        assertEquals(0, tls.verify());
        assertEquals(Optional.of("TLSv1.3"), tls.version());
        assertEquals(Optional.of("TLS_AES_128_GCM_SHA256"), tls.cipher());
        assertEquals(
                List.of(
                        ProxyHeader.TYPE_ALPN,
                        ProxyHeader.TYPE_AUTHORITY,
                        ProxyHeader.TYPE_UNIQUE_ID,
                        ProxyHeader.TYPE_SSL,
                        0xE0),
                parsed.tlvs().stream().map(ProxyHeader.Tlv::type).toList(),
                "NOOP is skipped");
    }

    @Test
    void v2Tcp6() throws Exception {
        byte[] block = new byte[36];
        block[15] = 1; // ::1
        block[16] = 0x20;
        block[17] = 0x01; // 2001::
        block[32] = (byte) 0xC3;
        block[33] = 0x50; // 50000
        block[35] = 80;
        ProxyHeader header = parse(v2(0x21, 0x21, block));
        assertEquals(Optional.of(inet("::1", 50000)), header.source());
        assertEquals(Optional.of(inet("2001::", 80)), header.destination());
    }

    @Test
    void v2UnixCarriesSocketPaths() {
        ProxyHeader header = parse(v2(0x21, 0x31, unix("/run/client.sock", "/run/quarry.sock")));
        assertEquals(Optional.of(UnixDomainSocketAddress.of("/run/client.sock")), header.source());
        assertEquals(Optional.of(UnixDomainSocketAddress.of("/run/quarry.sock")), header.destination());
        assertEquals(16 + 216, v2(0x21, 0x31, unix("", "")).length, "a header longer than 108 bytes");
    }

    @Test
    void v2LocalCommandCarriesNoAddressEvenWithABlock() {
        ProxyHeader header = parse(v2(0x20, 0x11, tcp4(new int[] {1, 2, 3, 4}, new int[] {5, 6, 7, 8}, 1, 2)));
        assertEquals(ProxyHeader.Command.LOCAL, header.command());
        assertEquals(Optional.empty(), header.source());
        assertEquals(
                ProxyHeader.Command.LOCAL, parse(v2(0x20, 0x00, new byte[0])).command());
    }

    @Test
    void v2UnspecifiedFamilyCarriesNoAddress() {
        assertEquals(Optional.empty(), parse(v2(0x21, 0x00, new byte[0])).source());
    }

    @Test
    void v2HeaderLongerThan108Bytes() throws Exception {
        byte[] header = v2(
                0x21,
                0x11,
                tcp4(new int[] {127, 0, 0, 1}, new int[] {127, 0, 0, 2}, 1000, 2000),
                tlv(ProxyHeader.TYPE_AUTHORITY, "a".repeat(300)),
                tlv(ProxyHeader.TYPE_UNIQUE_ID, new byte[128]));
        assertTrue(header.length > 400);
        ProxyHeader parsed = parse(header);
        assertEquals(Optional.of("a".repeat(300)), parsed.authority());
        assertEquals(Optional.of(inet("127.0.0.1", 1000)), parsed.source());
    }

    @Test
    void v2ChecksumIsVerifiedWhenSent() {
        byte[] header = ProxyHeaders.withCrc(v2(
                0x21,
                0x11,
                tcp4(new int[] {127, 0, 0, 1}, new int[] {127, 0, 0, 2}, 1, 2),
                tlv(ProxyHeader.TYPE_CRC32C, new byte[4])));
        assertEquals(1, parse(header).tlvs().size());
        header[16] ^= 1; // the source address, after the checksum was computed
        assertTrue(reject(header).getMessage().contains("CRC32C mismatch"));
    }

    @Test
    void everyPrefixOfAHeaderNeedsMore() {
        byte[] v2 = v2(0x21, 0x31, unix("/a", "/b"), tlv(ProxyHeader.TYPE_ALPN, "http/1.1"));
        for (byte[] header : List.of(v1("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n"), v2)) {
            for (int n = 0; n < header.length; n++) {
                assertEquals(
                        ProxyHeaderParser.NEED_MORE,
                        ProxyHeaderParser.headerLength(Arrays.copyOf(header, n), n, MAX),
                        "prefix of " + n + " bytes");
            }
            assertEquals(header.length, ProxyHeaderParser.headerLength(header, header.length, MAX));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET / HTTP/1.1\r\n", "PRI * HTTP/2.0\r\n", "PROXY\r\n", "\u0016\u0003\u0001", "\r\n\r\nX"})
    void bytesWithoutASignatureAreNoHeader(String start) {
        byte[] bytes = start.getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(ProxyHeaderParser.NOT_PROXY, ProxyHeaderParser.headerLength(bytes, bytes.length, MAX));
    }

    @Test
    void aBadSignatureByteIsNoHeader() {
        byte[] header = v2(0x21, 0x00, new byte[0]);
        header[7] = 'X';
        assertEquals(ProxyHeaderParser.NOT_PROXY, ProxyHeaderParser.headerLength(header, header.length, MAX));
    }

    @Test
    void wrongVersionAfterTheV2Signature() {
        byte[] header = v2(0x11, 0x11, new byte[12]);
        assertTrue(reject(header).getMessage().contains("unsupported PROXY protocol version 1"));
    }

    @Test
    void oversizedV2HeaderIsRefusedBeforeItArrives() {
        byte[] fixed = Arrays.copyOf(v2(0x21, 0x11, new byte[MAX]), 16);
        BadProxyHeaderException x = assertThrows(
                BadProxyHeaderException.class, () -> ProxyHeaderParser.headerLength(fixed, fixed.length, MAX));
        assertTrue(x.getMessage().contains("longer than the limit of " + MAX), x.getMessage());
    }

    @Test
    void v1LineTooLong() {
        byte[] line = v1("PROXY TCP4 " + "1".repeat(120));
        BadProxyHeaderException x = assertThrows(
                BadProxyHeaderException.class, () -> ProxyHeaderParser.headerLength(line, line.length, MAX));
        assertTrue(x.getMessage().contains("no CRLF within 107 bytes"), x.getMessage());
    }

    @Test
    void v1LineWithABinaryByteIsRefusedAtOnce() {
        byte[] line = v1("PROXY TCP4 1.2.3.4\u0000");
        assertThrows(BadProxyHeaderException.class, () -> ProxyHeaderParser.headerLength(line, line.length, MAX));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "PROXY TCP4 256.0.0.1 1.2.3.4 1 2\r\n",
                "PROXY TCP4 01.2.3.4 1.2.3.4 1 2\r\n",
                "PROXY TCP4 1.2.3 1.2.3.4 1 2\r\n",
                "PROXY TCP4 ::1 1.2.3.4 1 2\r\n",
                "PROXY TCP4 localhost 1.2.3.4 1 2\r\n",
                "PROXY TCP6 1.2.3.4 ::1 1 2\r\n",
                "PROXY TCP6 ::g ::1 1 2\r\n",
                "PROXY TCP6 [::1] ::1 1 2\r\n",
                "PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n",
                "PROXY TCP4 1.2.3.4 1.2.3.4 65536 2\r\n",
                "PROXY TCP4 1.2.3.4 1.2.3.4 08 2\r\n",
                "PROXY TCP4 1.2.3.4 1.2.3.4 -1 2\r\n",
                "PROXY TCP4 1.2.3.4 1.2.3.4 1\r\n",
                "PROXY TCP4 1.2.3.4  1.2.3.4 1 2\r\n",
                "PROXY TCP5 1.2.3.4 1.2.3.4 1 2\r\n",
                "PROXY TCP4 1.2.3.4 1.2.3.4 1 2\n",
            })
    void badV1Lines(String line) {
        BadProxyHeaderException x = reject(v1(line));
        assertTrue(x.getMessage().startsWith("PROXY protocol v1"), x.getMessage());
    }

    @Test
    void truncatedAddressBlock() {
        BadProxyHeaderException x = reject(v2(0x21, 0x21, new byte[12]));
        assertTrue(x.getMessage().contains("too short for family AF_INET6, which needs 36"), x.getMessage());
    }

    @Test
    void truncatedTlv() {
        byte[] ok = tlv(ProxyHeader.TYPE_ALPN, "h2");
        byte[] cut = Arrays.copyOf(ok, ok.length - 1);
        BadProxyHeaderException x = reject(v2(0x21, 0x11, new byte[12], cut));
        assertTrue(x.getMessage().contains("runs past the end"), x.getMessage());
        x = reject(v2(0x21, 0x11, new byte[12], new byte[] {1, 0}));
        assertTrue(x.getMessage().contains("is truncated: 2 bytes left"), x.getMessage());
    }

    @Test
    void malformedV2Blocks() {
        byte[] block = new byte[12];
        assertTrue(reject(v2(0x22, 0x11, block)).getMessage().contains("unknown PROXY protocol v2 command 0x2"));
        assertTrue(reject(v2(0x21, 0x41, block)).getMessage().contains("unknown PROXY protocol v2 address family"));
        assertTrue(reject(v2(0x21, 0x12, block)).getMessage().contains("is not STREAM"));
        assertTrue(reject(v2(0x21, 0x11, block, tlv(ProxyHeader.TYPE_UNIQUE_ID, new byte[129])))
                .getMessage()
                .contains("UNIQUE_ID of 129 bytes"));
        assertTrue(reject(v2(0x21, 0x11, block, tlv(ProxyHeader.TYPE_SSL, new byte[4])))
                .getMessage()
                .contains("SSL TLV has 4 bytes"));
        byte[] badSub = concat(new byte[5], new byte[] {0x21, 0, 9});
        assertTrue(reject(v2(0x21, 0x11, block, tlv(ProxyHeader.TYPE_SSL, badSub)))
                .getMessage()
                .contains("TLV 0x21 of 9 bytes runs past"));
    }
}
