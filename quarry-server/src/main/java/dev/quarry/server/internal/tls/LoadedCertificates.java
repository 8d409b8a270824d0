package dev.quarry.server.internal.tls;

import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.SSLContext;

/**
 * The certificates of an HTTPS listener as read at one moment: the SSL context made from them (with its own
 * {@link SniKeyManager} and session cache), and the SNI matchers its engines need.
 *
 * <p>Thread-safety: immutable.
 *
 * @param context the SSL context
 * @param keyManager its key manager
 * @param sniMatchers the matchers to set on each engine: empty unless SNI is required
 */
public record LoadedCertificates(SSLContext context, SniKeyManager keyManager, List<SNIMatcher> sniMatchers) {

    /**
     * Reads every source and makes a context of them.
     *
     * @param sources the certificates' files, the default certificate's first
     * @param requireSni whether a handshake without a known server name is refused
     * @return the certificates
     * @throws UncheckedIOException if a file cannot be read
     * @throws IllegalArgumentException if a file holds no usable certificate or key
     */
    public static LoadedCertificates load(List<CertificateSource> sources, boolean requireSni) {
        List<ServerCertificate> certificates = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            certificates.addAll(sources.get(i).load("cert-" + i));
        }
        SniKeyManager keyManager = new SniKeyManager(certificates, requireSni);
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {keyManager}, null, null);
            List<SNIMatcher> matchers = requireSni ? List.of(keyManager.sniMatcher()) : List.of();
            return new LoadedCertificates(context, keyManager, matchers);
        } catch (GeneralSecurityException x) {
            throw new IllegalArgumentException("cannot make a TLS context: " + x.getMessage(), x);
        }
    }

    /**
     * @return the certificates, e.g. {@code [example.com (EC, until 2027-02-26), *.example.org (RSA, 2 names, until
     *     2027-03-01)]}
     */
    @Override
    public String toString() {
        return keyManager.certificates().toString();
    }
}
