package dev.quarry.io;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * Finds and decodes PROXY protocol headers (HAProxy's specification, versions 1 and 2) at the start of a connection's
 * bytes. {@link #headerLength} looks at the bytes received so far and says whether they start a header, where it
 * ends, or that more are needed, so that a header split across any number of TCP segments is found without ever
 * blocking; {@link #parse} then decodes the complete header.
 *
 * <p>Strict: a line or block that does not follow the specification exactly throws {@link BadProxyHeaderException}
 * naming the problem. Bytes that do not begin with either signature are no header at all ({@link #NOT_PROXY}).
 *
 * <p>Thread-safety: stateless; any thread. Cost: {@code headerLength} is O(bytes so far) and allocation-free.
 */
final class ProxyHeaderParser {
    /** {@link #headerLength}: the bytes so far are a prefix of a header; read more. */
    static final int NEED_MORE = -1;
    /** {@link #headerLength}: the bytes do not start with a PROXY protocol signature. */
    static final int NOT_PROXY = 0;
    /** The longest version 1 line, CRLF included (the specification's bound). */
    static final int V1_MAX_LENGTH = 107;
    /** The fixed part of a version 2 header: signature, version and command, family, length. */
    static final int V2_FIXED_LENGTH = 16;

    private static final byte[] V1_SIGNATURE = "PROXY ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    private static final int UNIX_PATH_LENGTH = 108;
    private static final int MAX_UNIQUE_ID = 128;

    private ProxyHeaderParser() {}

    /**
     * @param bytes the connection's first bytes
     * @param count how many of them were received
     * @param maxLength the longest version 2 header accepted (version 1 has its own bound)
     * @return the length of the complete header at the start of {@code bytes}; {@link #NEED_MORE}; or
     *     {@link #NOT_PROXY}
     * @throws BadProxyHeaderException if the bytes start a header that can no longer be valid
     */
    static int headerLength(byte[] bytes, int count, int maxLength) {
        if (count == 0) {
            return NEED_MORE;
        }
        if (matches(bytes, count, V2_SIGNATURE)) {
            if (count < V2_FIXED_LENGTH) {
                return NEED_MORE;
            }
            int version = (bytes[12] & 0xF0) >>> 4;
            if (version != 2) {
                throw new BadProxyHeaderException("unsupported PROXY protocol version " + version
                        + " after the version 2 signature (byte 13 is 0x" + hex(bytes[12]) + ")");
            }
            int length = V2_FIXED_LENGTH + u16(bytes, 14);
            if (length > maxLength) {
                throw new BadProxyHeaderException(
                        "PROXY protocol v2 header of " + length + " bytes is longer than the limit of " + maxLength);
            }
            return count >= length ? length : NEED_MORE;
        }
        if (!matches(bytes, count, V1_SIGNATURE)) {
            return NOT_PROXY;
        }
        int limit = Math.min(count, V1_MAX_LENGTH);
        for (int i = V1_SIGNATURE.length; i < limit; i++) {
            byte b = bytes[i];
            if (b == '\n') {
                if (bytes[i - 1] != '\r') {
                    throw new BadProxyHeaderException("PROXY protocol v1 line ends with LF instead of CRLF");
                }
                return i + 1;
            }
            if ((b < 0x20 || b > 0x7E) && b != '\r') {
                throw new BadProxyHeaderException(
                        "PROXY protocol v1 line has a non-printable byte 0x" + hex(b) + " at offset " + i);
            }
        }
        if (count >= V1_MAX_LENGTH) {
            throw new BadProxyHeaderException("PROXY protocol v1 line has no CRLF within " + V1_MAX_LENGTH + " bytes");
        }
        return NEED_MORE;
    }

    /** @return whether the first {@code min(count, signature.length)} bytes equal the signature's */
    private static boolean matches(byte[] bytes, int count, byte[] signature) {
        int n = Math.min(count, signature.length);
        for (int i = 0; i < n; i++) {
            if (bytes[i] != signature[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param bytes a complete header at the start, as {@link #headerLength} found it
     * @param length its length
     * @return the decoded header
     * @throws BadProxyHeaderException if the header breaks the specification
     */
    static ProxyHeader parse(byte[] bytes, int length) {
        return bytes[0] == 'P' ? parseV1(bytes, length) : parseV2(bytes, length);
    }

    private static ProxyHeader parseV1(byte[] bytes, int length) {
        String line =
                new String(bytes, V1_SIGNATURE.length, length - 2 - V1_SIGNATURE.length, StandardCharsets.US_ASCII);
        if (line.equals("UNKNOWN") || line.startsWith("UNKNOWN ")) {
            // The proxy does not know the client (or it is not TCP): the rest of the line is to be ignored.
            return new ProxyHeader(1, ProxyHeader.Command.PROXY, Optional.empty(), Optional.empty(), List.of());
        }
        String[] parts = line.split(" ", -1);
        boolean v4 = parts[0].equals("TCP4");
        if (!v4 && !parts[0].equals("TCP6")) {
            throw new BadProxyHeaderException(
                    "PROXY protocol v1 line has unknown protocol '" + parts[0] + "' (expected TCP4, TCP6 or UNKNOWN)");
        }
        if (parts.length != 5) {
            throw new BadProxyHeaderException("PROXY protocol v1 line '" + line + "' is not 'PROXY " + parts[0]
                    + " <source> <destination> <source port> <destination port>'");
        }
        InetAddress source = v1Address(parts[1], v4);
        InetAddress destination = v1Address(parts[2], v4);
        int sourcePort = v1Port(parts[3]);
        int destinationPort = v1Port(parts[4]);
        return new ProxyHeader(
                1,
                ProxyHeader.Command.PROXY,
                Optional.of(new InetSocketAddress(source, sourcePort)),
                Optional.of(new InetSocketAddress(destination, destinationPort)),
                List.of());
    }

    private static InetAddress v1Address(String text, boolean v4) {
        if (v4) {
            byte[] raw = dottedQuad(text);
            if (raw == null) {
                throw new BadProxyHeaderException(
                        "PROXY protocol v1 TCP4 address '" + text + "' is not a dotted-quad IPv4 address");
            }
            return rawAddress(raw);
        }
        // Only hex digits, colons and dots (an embedded IPv4 tail): InetAddress then parses a literal and never
        // looks a name up.
        boolean literal = text.indexOf(':') >= 0
                && text.chars().allMatch(c -> c == ':' || c == '.' || Character.digit(c, 16) >= 0);
        if (literal) {
            try {
                return InetAddress.getByName(text);
            } catch (UnknownHostException x) {
                // not a valid literal: said below
            }
        }
        throw new BadProxyHeaderException("PROXY protocol v1 TCP6 address '" + text + "' is not an IPv6 address");
    }

    // Four decimal parts without leading zeros, as the specification writes them; null if the text is not that.
    private static byte[] dottedQuad(String text) {
        String[] octets = text.split("\\.", -1);
        if (octets.length != 4) {
            return null;
        }
        byte[] raw = new byte[4];
        for (int i = 0; i < 4; i++) {
            String octet = octets[i];
            if (octet.isEmpty() || octet.length() > 3 || !octet.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return null;
            }
            if ((octet.length() > 1 && octet.charAt(0) == '0') || Integer.parseInt(octet) > 255) {
                return null;
            }
            raw[i] = (byte) Integer.parseInt(octet);
        }
        return raw;
    }

    private static int v1Port(String text) {
        boolean digits = !text.isEmpty()
                && text.length() <= 5
                && text.chars().allMatch(c -> c >= '0' && c <= '9')
                && (text.length() == 1 || text.charAt(0) != '0');
        if (!digits || Integer.parseInt(text) > 65535) {
            throw new BadProxyHeaderException("PROXY protocol v1 port '" + text + "' is not a number 0-65535");
        }
        return Integer.parseInt(text);
    }

    private static ProxyHeader parseV2(byte[] bytes, int length) {
        int command = bytes[12] & 0x0F;
        if (command > 1) {
            throw new BadProxyHeaderException("unknown PROXY protocol v2 command 0x" + Integer.toHexString(command));
        }
        if (command == 0) {
            // LOCAL: the proxy speaks for itself (a health check); the rest of the block is to be discarded.
            return new ProxyHeader(2, ProxyHeader.Command.LOCAL, Optional.empty(), Optional.empty(), List.of());
        }
        int family = (bytes[13] & 0xF0) >>> 4;
        int transport = bytes[13] & 0x0F;
        if (family == 0) {
            // AF_UNSPEC: the proxy does not know the client; the addresses, if any, are to be ignored.
            return new ProxyHeader(2, ProxyHeader.Command.PROXY, Optional.empty(), Optional.empty(), List.of());
        }
        int addressLength = switch (family) {
            case 1 -> 12;
            case 2 -> 36;
            case 3 -> 2 * UNIX_PATH_LENGTH;
            default ->
                throw new BadProxyHeaderException(
                        "unknown PROXY protocol v2 address family 0x" + Integer.toHexString(family));
        };
        if (transport != 1) {
            throw new BadProxyHeaderException("PROXY protocol v2 transport 0x" + Integer.toHexString(transport)
                    + " is not STREAM (0x1), on a stream connection");
        }
        if (length - V2_FIXED_LENGTH < addressLength) {
            throw new BadProxyHeaderException("PROXY protocol v2 address block of " + (length - V2_FIXED_LENGTH)
                    + " bytes is too short for family " + familyName(family) + ", which needs " + addressLength);
        }
        int at = V2_FIXED_LENGTH;
        SocketAddress source;
        SocketAddress destination;
        if (family == 3) {
            source = unixAddress(bytes, at);
            destination = unixAddress(bytes, at + UNIX_PATH_LENGTH);
        } else {
            int size = family == 1 ? 4 : 16;
            InetAddress sourceAddress = inetAddress(bytes, at, size);
            InetAddress destinationAddress = inetAddress(bytes, at + size, size);
            int ports = at + 2 * size;
            source = new InetSocketAddress(sourceAddress, u16(bytes, ports));
            destination = new InetSocketAddress(destinationAddress, u16(bytes, ports + 2));
        }
        List<ProxyHeader.Tlv> tlvs = tlvs(bytes, V2_FIXED_LENGTH + addressLength, length, true);
        checkCrc(bytes, length, V2_FIXED_LENGTH + addressLength);
        return new ProxyHeader(2, ProxyHeader.Command.PROXY, Optional.of(source), Optional.of(destination), tlvs);
    }

    private static String familyName(int family) {
        return switch (family) {
            case 1 -> "AF_INET";
            case 2 -> "AF_INET6";
            default -> "AF_UNIX";
        };
    }

    private static InetAddress inetAddress(byte[] bytes, int at, int size) {
        byte[] raw = new byte[size];
        System.arraycopy(bytes, at, raw, 0, size);
        return rawAddress(raw);
    }

    private static InetAddress rawAddress(byte[] raw) {
        try {
            return InetAddress.getByAddress(raw); // a raw address: no name lookup
        } catch (UnknownHostException x) {
            throw new AssertionError("an address of 4 or 16 bytes was refused", x);
        }
    }

    private static UnixDomainSocketAddress unixAddress(byte[] bytes, int at) {
        int end = at;
        while (end < at + UNIX_PATH_LENGTH && bytes[end] != 0) {
            end++;
        }
        // An unnamed socket (or a Linux abstract one, which starts with NUL) has no path to report.
        return UnixDomainSocketAddress.of(new String(bytes, at, end - at, StandardCharsets.UTF_8));
    }

    /**
     * Decodes the TLVs between {@code from} and {@code to}, skipping {@code PP2_TYPE_NOOP}; at the top level also checks
     * the layout of those whose layout the specification fixes.
     */
    static List<ProxyHeader.Tlv> tlvs(byte[] bytes, int from, int to, boolean topLevel) {
        List<ProxyHeader.Tlv> tlvs = new ArrayList<>();
        int at = from;
        while (at < to) {
            if (to - at < 3) {
                throw new BadProxyHeaderException(
                        "PROXY protocol v2 TLV at offset " + at + " is truncated: " + (to - at) + " bytes left");
            }
            int type = bytes[at] & 0xFF;
            int size = u16(bytes, at + 1);
            int start = at + 3;
            if (size > to - start) {
                throw new BadProxyHeaderException("PROXY protocol v2 TLV 0x" + Integer.toHexString(type) + " of " + size
                        + " bytes runs past the end of its block (" + (to - start) + " bytes left)");
            }
            at = start + size;
            if (topLevel && type == ProxyHeader.TYPE_NOOP) {
                continue;
            }
            byte[] value = new byte[size];
            System.arraycopy(bytes, start, value, 0, size);
            if (topLevel) {
                checkTlv(type, value);
            }
            tlvs.add(new ProxyHeader.Tlv(type, value));
        }
        return tlvs;
    }

    private static void checkTlv(int type, byte[] value) {
        switch (type) {
            case ProxyHeader.TYPE_UNIQUE_ID -> {
                if (value.length > MAX_UNIQUE_ID) {
                    throw new BadProxyHeaderException("PROXY protocol v2 UNIQUE_ID of " + value.length
                            + " bytes is longer than " + MAX_UNIQUE_ID);
                }
            }
            case ProxyHeader.TYPE_CRC32C -> {
                if (value.length != 4) {
                    throw new BadProxyHeaderException(
                            "PROXY protocol v2 CRC32C TLV has " + value.length + " bytes instead of 4");
                }
            }
            case ProxyHeader.TYPE_SSL -> {
                if (value.length < 5) {
                    throw new BadProxyHeaderException(
                            "PROXY protocol v2 SSL TLV has " + value.length + " bytes, fewer than its 5 fixed ones");
                }
                tlvs(value, 5, value.length, false);
            }
            default -> {}
        }
    }

    /** Checks a {@code PP2_TYPE_CRC32C} TLV, if present: the checksum of the header with the TLV's value zeroed. */
    private static void checkCrc(byte[] bytes, int length, int tlvStart) {
        int at = tlvStart;
        while (at + 3 <= length) {
            int type = bytes[at] & 0xFF;
            int size = u16(bytes, at + 1);
            if (type == ProxyHeader.TYPE_CRC32C) {
                int value = at + 3;
                long expected = ((bytes[value] & 0xFFL) << 24)
                        | ((bytes[value + 1] & 0xFF) << 16)
                        | ((bytes[value + 2] & 0xFF) << 8)
                        | (bytes[value + 3] & 0xFF);
                CRC32C crc = new CRC32C();
                crc.update(bytes, 0, value);
                crc.update(new byte[4]);
                crc.update(bytes, value + 4, length - value - 4);
                if (crc.getValue() != expected) {
                    throw new BadProxyHeaderException("PROXY protocol v2 CRC32C mismatch: header says 0x"
                            + Long.toHexString(expected) + ", bytes give 0x" + Long.toHexString(crc.getValue()));
                }
                return;
            }
            at += 3 + size;
        }
    }

    private static int u16(byte[] bytes, int at) {
        return ((bytes[at] & 0xFF) << 8) | (bytes[at + 1] & 0xFF);
    }

    private static String hex(byte b) {
        return String.format("%02x", b & 0xFF);
    }
}
