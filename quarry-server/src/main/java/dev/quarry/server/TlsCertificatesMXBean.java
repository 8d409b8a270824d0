package dev.quarry.server;

import java.util.List;

/**
 * The JMX view of an HTTPS listener's certificates ({@code type=Tls}): what they are, their reloads, and the
 * operation that reloads them from their files (see {@link Server#reloadCertificates()}).
 */
public interface TlsCertificatesMXBean {

    /** @return e.g. {@code https (h2, http/1.1) on 0.0.0.0:8443} */
    String getListener();

    /** @return each certificate in use, e.g. {@code example.com (EC, 2 names, until 2027-02-26)}, the default first */
    List<String> getCertificates();

    /** @return the host names of the certificates in use, the default certificate's first */
    List<String> getServerNames();

    /** @return reloads that replaced the certificates since start */
    long getReloads();

    /** @return reloads that failed since start (the certificates in use were kept) */
    long getFailedReloads();

    /** @return why the last failed reload failed; empty if none has */
    String getLastFailure();

    /**
     * Reads the certificate files again and uses them for new handshakes; connections already made keep theirs.
     *
     * @throws IllegalArgumentException if a file holds no usable certificate or key (the certificates in use stay)
     * @throws java.io.UncheckedIOException if a file cannot be read (the certificates in use stay)
     */
    void reload();
}
