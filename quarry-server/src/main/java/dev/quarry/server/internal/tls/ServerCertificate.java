package dev.quarry.server.internal.tls;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECKey;
import java.security.interfaces.RSAKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.security.auth.x500.X500Principal;

/**
 * One certificate the server can present: its chain, its private key, and the host names it is for, taken from the
 * certificate's DNS subject alternative names, or from its common name when it has none (RFC 6125 §6.4.4). A name
 * {@code *.example.com} is a wildcard: it matches exactly one label in its place ({@code www.example.com}, not
 * {@code example.com} nor {@code a.b.example.com}).
 *
 * <p>Thread-safety: immutable.
 *
 * @param alias the name the key manager knows it by
 * @param chain the certificate chain, the server's first
 * @param key the private key of the first certificate
 * @param names the host names, lower case, in the certificate's order
 */
public record ServerCertificate(String alias, X509Certificate[] chain, PrivateKey key, List<String> names) {
    private static final Pattern COMMON_NAME = Pattern.compile("(?:^|,)CN=((?:\\\\.|[^,\\\\])*)");
    private static final int DNS_NAME = 2;

    /** Copies. */
    public ServerCertificate {
        chain = chain.clone();
        names = List.copyOf(names);
    }

    /**
     * Makes the entry of a chain and its key, after checking that the key is the certificate's.
     *
     * @param alias the key manager's name for it
     * @param chain the chain, the server's certificate first
     * @param key its private key
     * @param source what the chain and key were read from, for error messages
     * @return the entry
     * @throws IllegalArgumentException if the key does not belong to the certificate, or the certificate names no host
     */
    public static ServerCertificate of(String alias, List<X509Certificate> chain, PrivateKey key, String source) {
        X509Certificate leaf = chain.getFirst();
        if (!matches(key, leaf.getPublicKey())) {
            throw new IllegalArgumentException("the private key in " + source + " does not belong to the certificate "
                    + leaf.getSubjectX500Principal());
        }
        List<String> names = names(leaf);
        if (names.isEmpty()) {
            throw new IllegalArgumentException("the certificate in " + source + " names no host: no DNS subject"
                    + " alternative name and no common name (" + leaf.getSubjectX500Principal() + ")");
        }
        return new ServerCertificate(alias, chain.toArray(X509Certificate[]::new), key, names);
    }

    /** @return the DNS subject alternative names of a certificate, else its common name; lower case, no final dot */
    static List<String> names(X509Certificate certificate) {
        Set<String> names = new LinkedHashSet<>();
        try {
            Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (List<?> alternative : alternatives) {
                    if (alternative.get(0) instanceof Integer type && type == DNS_NAME) {
                        names.add(normalize((String) alternative.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException x) {
            throw new IllegalArgumentException(
                    "malformed subject alternative names in " + certificate.getSubjectX500Principal(), x);
        }
        if (names.isEmpty()) {
            Matcher cn =
                    COMMON_NAME.matcher(certificate.getSubjectX500Principal().getName(X500Principal.RFC2253));
            if (cn.find() && !cn.group(1).isEmpty()) {
                names.add(normalize(cn.group(1).replaceAll("\\\\(.)", "$1")));
            }
        }
        return new ArrayList<>(names);
    }

    /** @return a host name as names are compared: ASCII lower case, without the final dot of a fully qualified name */
    static String normalize(String host) {
        String lower = host.toLowerCase(Locale.ROOT);
        return lower.endsWith(".") ? lower.substring(0, lower.length() - 1) : lower;
    }

    /**
     * @param host a normalized host name
     * @return whether one of the names is exactly this host
     */
    boolean matchesExactly(String host) {
        return names.contains(host);
    }

    /**
     * @param host a normalized host name
     * @return whether a wildcard name matches it: {@code *.example.com} for {@code www.example.com}, one label only
     */
    boolean matchesWildcard(String host) {
        int dot = host.indexOf('.');
        if (dot <= 0) {
            return false;
        }
        String wildcard = "*" + host.substring(dot);
        return names.contains(wildcard);
    }

    /**
     * @param keyType the key type the JDK asks for: {@code EC}, {@code RSA}, {@code RSASSA-PSS}, or a TLS 1.2 pair
     *     such as {@code EC_RSA} (key type, then the type of the key that signed the certificate)
     * @return whether this certificate's key serves it
     */
    boolean serves(String keyType) {
        int underscore = keyType.indexOf('_');
        String type = underscore < 0 ? keyType : keyType.substring(0, underscore);
        return key.getAlgorithm().equalsIgnoreCase(type);
    }

    /**
     * @return the family of the key, as {@link SniKeyManager#clientKeys} names them: {@code EC}, {@code RSA},
     *     {@code EdDSA}
     */
    String keyFamily() {
        String algorithm = key.getAlgorithm().toUpperCase(Locale.ROOT);
        if (algorithm.equals("EC")) {
            return "EC";
        }
        if (algorithm.contains("RSA")) {
            return "RSA";
        }
        return algorithm.startsWith("ED") ? "EdDSA" : key.getAlgorithm();
    }

    /** Whether a private key is the partner of a public key: equal RSA moduli, or an EC signature that verifies. */
    private static boolean matches(PrivateKey privateKey, PublicKey publicKey) {
        if (privateKey instanceof RSAKey rsa && publicKey instanceof RSAKey rsaPublic) {
            return rsa.getModulus().equals(rsaPublic.getModulus());
        }
        if (privateKey instanceof ECKey && publicKey instanceof ECKey) {
            try {
                byte[] challenge = "quarry: does this key belong to this certificate?"
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                Signature signer = Signature.getInstance("SHA256withECDSA");
                signer.initSign(privateKey);
                signer.update(challenge);
                byte[] signature = signer.sign();
                Signature verifier = Signature.getInstance("SHA256withECDSA");
                verifier.initVerify(publicKey);
                verifier.update(challenge);
                return verifier.verify(signature);
            } catch (GeneralSecurityException x) {
                return false;
            }
        }
        // Another kind of key: the algorithms must at least agree; a mismatch shows at the first handshake.
        return privateKey.getAlgorithm().equals(publicKey.getAlgorithm());
    }

    /**
     * @return the first name, the key's algorithm and the last day of validity, e.g.
     *     {@code example.com (EC, 2 names, until 2027-02-26)}: what an operator checks after a renewal
     */
    @Override
    public String toString() {
        return names.getFirst() + " (" + key.getAlgorithm() + (names.size() > 1 ? ", " + names.size() + " names" : "")
                + ", until "
                + chain[0].getNotAfter()
                        .toInstant()
                        .atZone(java.time.ZoneOffset.UTC)
                        .toLocalDate() + ")";
    }
}
