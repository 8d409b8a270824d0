package dev.quarry.server.internal.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.StandardConstants;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Picks the server's certificate from the host name the client sent in the SNI extension (RFC 6066 §3): a
 * certificate with exactly that name first, else one whose wildcard matches it, else the default (the first
 * certificate, and those for the same names) — unless SNI is required, when a handshake without a name gets no
 * certificate (the {@code handshake_failure} alert) and one with an unknown name is refused by {@link #sniMatcher()}
 * (the {@code unrecognized_name} alert).
 *
 * <p>Certificates are chosen by name first, among those whose signatures the client can verify, then by key type: the
 * JDK asks for one key type after another (in the order of the client's signature algorithms), and a certificate for
 * a wildcard or the default must not win over one with exactly the right name that the client can use too.
 *
 * <p>Thread-safety: immutable; called by handshakes on any thread. Cost: a linear scan of the certificates for each
 * key type the JDK asks about, with a few small lists: nothing next to the handshake's own work.
 */
public final class SniKeyManager extends X509ExtendedKeyManager {
    private final List<ServerCertificate> certificates;
    private final List<ServerCertificate> defaults;
    private final boolean requireSni;

    /**
     * @param certificates the certificates, the default first
     * @param requireSni whether a handshake without a known server name is refused
     */
    public SniKeyManager(List<ServerCertificate> certificates, boolean requireSni) {
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException("no certificate");
        }
        this.certificates = List.copyOf(certificates);
        this.requireSni = requireSni;
        List<String> defaultNames = certificates.getFirst().names();
        this.defaults = certificates.stream()
                .filter(certificate -> certificate.names().equals(defaultNames))
                .toList();
    }

    /** @return the certificates, the default first */
    public List<ServerCertificate> certificates() {
        return certificates;
    }

    /**
     * @return the matcher that refuses, with {@code unrecognized_name}, a server name no certificate has (exactly or by
     *     wildcard); what {@code requireSni} sets on every engine
     */
    public SNIMatcher sniMatcher() {
        return new SNIMatcher(StandardConstants.SNI_HOST_NAME) {
            @Override
            public boolean matches(SNIServerName serverName) {
                try {
                    String host = ServerCertificate.normalize(new SNIHostName(serverName.getEncoded()).getAsciiName());
                    return covers(host);
                } catch (IllegalArgumentException x) {
                    return false; // not a host name at all
                }
            }
        };
    }

    /**
     * @param host a normalized host name
     * @return whether a certificate has this name, exactly or by wildcard
     */
    boolean covers(String host) {
        for (ServerCertificate certificate : certificates) {
            if (certificate.matchesExactly(host) || certificate.matchesWildcard(host)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param host the host name the client asked for, normalized; empty if it sent none
     * @param clientKeys the key families whose signatures the client verifies ({@code EC}, {@code RSA},
     *     {@code EdDSA}); empty if it did not say
     * @return the most specific certificates for the host that the client can verify: those with exactly the name,
     *     else those with a matching wildcard, else the defaults (none when SNI is required)
     */
    List<ServerCertificate> candidates(Optional<String> host, Set<String> clientKeys) {
        if (host.isPresent()) {
            String name = host.get();
            List<ServerCertificate> exact = new ArrayList<>(1);
            List<ServerCertificate> wildcard = new ArrayList<>(1);
            for (ServerCertificate certificate : certificates) {
                if (!clientKeys.isEmpty() && !clientKeys.contains(certificate.keyFamily())) {
                    continue;
                }
                if (certificate.matchesExactly(name)) {
                    exact.add(certificate);
                } else if (certificate.matchesWildcard(name)) {
                    wildcard.add(certificate);
                }
            }
            if (!exact.isEmpty()) {
                return exact;
            }
            if (!wildcard.isEmpty()) {
                return wildcard;
            }
        }
        return requireSni ? List.of() : defaults;
    }

    private String choose(String keyType, SSLSession handshake) {
        if (keyType == null) {
            return null;
        }
        for (ServerCertificate certificate : candidates(requestedHost(handshake), clientKeys(handshake))) {
            if (certificate.serves(keyType)) {
                return certificate.alias();
            }
        }
        return null;
    }

    /**
     * The key families the client can verify, from the signature algorithms it offered. The JDK asks for one key
     * type after another, in the client's order of preference; without this, a client that prefers ECDSA would get an
     * EC certificate for a wildcard or the default before the RSA certificate with exactly its name was asked for.
     *
     * @return {@code EC}, {@code RSA}, {@code EdDSA} as offered; empty if the handshake does not say
     */
    static Set<String> clientKeys(SSLSession handshake) {
        if (!(handshake instanceof ExtendedSSLSession extended)) {
            return Set.of();
        }
        String[] algorithms = extended.getPeerSupportedSignatureAlgorithms();
        if (algorithms == null || algorithms.length == 0) {
            return Set.of();
        }
        Set<String> families = new HashSet<>(4);
        for (String algorithm : algorithms) {
            String upper = algorithm.toUpperCase(Locale.ROOT);
            if (upper.contains("ECDSA")) {
                families.add("EC");
            } else if (upper.contains("RSA")) {
                families.add("RSA");
            } else if (upper.startsWith("ED")) {
                families.add("EdDSA");
            }
        }
        return families;
    }

    /** @return the host name of the client's SNI extension, normalized, if the handshake has one */
    static Optional<String> requestedHost(SSLSession handshake) {
        if (handshake instanceof ExtendedSSLSession extended) {
            for (SNIServerName name : extended.getRequestedServerNames()) {
                if (name instanceof SNIHostName host) {
                    return Optional.of(ServerCertificate.normalize(host.getAsciiName()));
                }
                if (name.getType() == StandardConstants.SNI_HOST_NAME) {
                    try {
                        return Optional.of(
                                ServerCertificate.normalize(new SNIHostName(name.getEncoded()).getAsciiName()));
                    } catch (IllegalArgumentException x) {
                        return Optional.empty();
                    }
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return choose(keyType, engine == null ? null : engine.getHandshakeSession());
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return choose(keyType, socket instanceof SSLSocket ssl ? ssl.getHandshakeSession() : null);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        String[] aliases = certificates.stream()
                .filter(certificate -> certificate.serves(keyType))
                .map(ServerCertificate::alias)
                .toArray(String[]::new);
        return aliases.length == 0 ? null : aliases;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        ServerCertificate certificate = byAlias(alias);
        return certificate == null ? null : certificate.chain().clone();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        ServerCertificate certificate = byAlias(alias);
        return certificate == null ? null : certificate.key();
    }

    private ServerCertificate byAlias(String alias) {
        for (ServerCertificate certificate : certificates) {
            if (certificate.alias().equals(alias)) {
                return certificate;
            }
        }
        return null;
    }

    /** A server presents no client certificate. */
    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    /** A server presents no client certificate. */
    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }

    /** A server presents no client certificate. */
    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        return null;
    }

    @Override
    public String toString() {
        return "SniKeyManager{" + certificates + (requireSni ? ", SNI required" : "") + "}";
    }
}
