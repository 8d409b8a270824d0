package dev.quarry.io;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a PROXY protocol header (version 1 or 2) said about a connection that a proxy or load balancer relayed: the
 * client's address and the address it connected to, and, in version 2, the TLVs the proxy added (ALPN, authority,
 * unique id, TLS details).
 *
 * <p>A {@link Command#LOCAL LOCAL} header (a proxy's own health check) and a {@code PROXY UNKNOWN} or
 * {@code AF_UNSPEC} header carry no addresses: the connection's own addresses stand.
 *
 * <p>Thread-safety: immutable.
 *
 * @param version 1 (the text line) or 2 (binary)
 * @param command whether the proxy relays a client ({@link Command#PROXY}) or speaks for itself
 * @param source the client's address, empty when the header carries none
 * @param destination the address the client connected to, empty when the header carries none
 * @param tlvs the version 2 TLVs in the order received, without {@code PP2_TYPE_NOOP} padding; empty for version 1
 */
public record ProxyHeader(
        int version,
        Command command,
        Optional<SocketAddress> source,
        Optional<SocketAddress> destination,
        List<Tlv> tlvs) {
    /** {@code PP2_TYPE_ALPN}: the application protocol the client negotiated with the proxy. */
    public static final int TYPE_ALPN = 0x01;
    /** {@code PP2_TYPE_AUTHORITY}: the host name the client asked for (TLS SNI), UTF-8. */
    public static final int TYPE_AUTHORITY = 0x02;
    /** {@code PP2_TYPE_CRC32C}: a checksum of the header. */
    public static final int TYPE_CRC32C = 0x03;
    /** {@code PP2_TYPE_NOOP}: padding, skipped. */
    public static final int TYPE_NOOP = 0x04;
    /** {@code PP2_TYPE_UNIQUE_ID}: an opaque id of the connection, at most 128 bytes. */
    public static final int TYPE_UNIQUE_ID = 0x05;
    /** {@code PP2_TYPE_SSL}: how the client spoke TLS to the proxy, with sub-TLVs. */
    public static final int TYPE_SSL = 0x20;
    /** {@code PP2_SUBTYPE_SSL_VERSION}: the TLS version, e.g. {@code TLSv1.3}, inside {@link #TYPE_SSL}. */
    public static final int SUBTYPE_SSL_VERSION = 0x21;
    /** {@code PP2_SUBTYPE_SSL_CN}: the client certificate's common name, inside {@link #TYPE_SSL}. */
    public static final int SUBTYPE_SSL_CN = 0x22;
    /** {@code PP2_SUBTYPE_SSL_CIPHER}: the cipher suite, inside {@link #TYPE_SSL}. */
    public static final int SUBTYPE_SSL_CIPHER = 0x23;

    /** Validates and copies. */
    public ProxyHeader {
        if (version != 1 && version != 2) {
            throw new IllegalArgumentException("PROXY protocol version must be 1 or 2, was " + version);
        }
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(destination, "destination");
        tlvs = List.copyOf(tlvs);
    }

    /** What the proxy says the connection is for. */
    public enum Command {
        /** The proxy relays a client: the addresses are the client's. */
        PROXY,
        /** The proxy speaks for itself (a health check): the addresses, if any, are ignored. */
        LOCAL
    }

    /**
     * One type-length-value entry of a version 2 header.
     *
     * @param type the type, e.g. {@link #TYPE_ALPN}
     * @param value the bytes; do not modify
     */
    public record Tlv(int type, byte[] value) {
        /** Validates. */
        public Tlv {
            if (type < 0 || type > 0xFF) {
                throw new IllegalArgumentException("TLV type must be 0-255, was " + type);
            }
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() {
            return "Tlv[0x" + Integer.toHexString(type) + ", " + HexFormat.of().formatHex(value) + "]";
        }
    }

    /** @return the first TLV of that type, if any */
    public Optional<Tlv> tlv(int type) {
        for (Tlv tlv : tlvs) {
            if (tlv.type() == type) {
                return Optional.of(tlv);
            }
        }
        return Optional.empty();
    }

    /** @return the application protocol the client negotiated with the proxy ({@code h2}), if the proxy said */
    public Optional<String> alpn() {
        return tlv(TYPE_ALPN).map(tlv -> new String(tlv.value(), StandardCharsets.US_ASCII));
    }

    /** @return the host name the client asked the proxy for (usually its TLS SNI), if the proxy said */
    public Optional<String> authority() {
        return tlv(TYPE_AUTHORITY).map(tlv -> new String(tlv.value(), StandardCharsets.UTF_8));
    }

    /** @return the proxy's unique id of the connection, if it sent one */
    public Optional<byte[]> uniqueId() {
        return tlv(TYPE_UNIQUE_ID).map(tlv -> tlv.value().clone());
    }

    /** @return how the client spoke TLS to the proxy, if the proxy sent {@link #TYPE_SSL} */
    public Optional<Ssl> ssl() {
        return tlv(TYPE_SSL).map(tlv -> Ssl.decode(tlv.value()));
    }

    /**
     * The {@code PP2_TYPE_SSL} TLV: the client flags, the verification result and the sub-TLVs.
     *
     * @param client {@code PP2_CLIENT_SSL} (1) when the client used TLS, {@code PP2_CLIENT_CERT_CONN} (2) and
     *     {@code PP2_CLIENT_CERT_SESS} (4) when it sent a certificate
     * @param verify 0 when the client certificate was verified (or none was sent), else non-zero
     * @param subTlvs the sub-TLVs (version, common name, cipher, ...)
     */
    public record Ssl(int client, long verify, List<Tlv> subTlvs) {
        /** Copies. */
        public Ssl {
            subTlvs = List.copyOf(subTlvs);
        }

        /** @return whether the client spoke TLS to the proxy */
        public boolean clientSsl() {
            return (client & 0x01) != 0;
        }

        /** @return the TLS version, e.g. {@code TLSv1.3}, if the proxy said */
        public Optional<String> version() {
            return text(SUBTYPE_SSL_VERSION);
        }

        /** @return the client certificate's common name, if the proxy said */
        public Optional<String> commonName() {
            return text(SUBTYPE_SSL_CN);
        }

        /** @return the cipher suite, if the proxy said */
        public Optional<String> cipher() {
            return text(SUBTYPE_SSL_CIPHER);
        }

        private Optional<String> text(int type) {
            for (Tlv tlv : subTlvs) {
                if (tlv.type() == type) {
                    return Optional.of(new String(tlv.value(), StandardCharsets.UTF_8));
                }
            }
            return Optional.empty();
        }

        // The parser validated the layout (5 fixed bytes, then well-formed sub-TLVs) before it kept the TLV.
        static Ssl decode(byte[] value) {
            int client = value[0] & 0xFF;
            long verify = ((value[1] & 0xFFL) << 24)
                    | ((value[2] & 0xFF) << 16)
                    | ((value[3] & 0xFF) << 8)
                    | (value[4] & 0xFF);
            return new Ssl(client, verify, ProxyHeaderParser.tlvs(value, 5, value.length, false));
        }
    }
}
