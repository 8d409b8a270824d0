package dev.quarry.server;

import dev.quarry.server.internal.tls.CertificateSource;
import dev.quarry.server.internal.tls.LoadedCertificates;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * The TLS settings of an HTTPS listener ({@link ServerBuilder#https(int, java.util.function.Consumer)}): the server's
 * certificates, from PEM files (a certificate chain and a PKCS#8 private key, RSA or EC) or PKCS#12 keystores, whether
 * SNI is required, whether the files are watched for changes, and whether ALPN may choose HTTP/2. Versions are TLS 1.3
 * and 1.2, cipher suites the JDK's AEAD suites with ephemeral key exchange (see
 * {@link dev.quarry.io.TlsConnectionFactory}).
 *
 * <p>With several certificates, the one presented is chosen by the host name the client sends (SNI): a certificate
 * with exactly that name (a DNS subject alternative name, or the common name of a certificate without any), else one
 * whose wildcard ({@code *.example.com}, one label) matches it, else the first certificate given — which is also what
 * a client that sends no name gets. With {@link Builder#requireSni(boolean) requireSni(true)} there is no default: a
 * client that names no host or an unknown one is refused during the handshake.
 *
 * <pre>{@code
 * Server.builder().https(8443, tls -> tls
 *         .pem(Path.of("example.com.pem"), Path.of("example.com.key"))      // the default
 *         .pem(Path.of("wildcard.example.org.pem"), Path.of("wildcard.example.org.key"))
 *         .watch(Duration.ofMinutes(1)));                                    // reload when a file changes
 * }</pre>
 *
 * <p>Certificates read from files can be read again while the server runs ({@link Server#reloadCertificates()}, JMX,
 * or {@link Builder#watch(Duration)}): new handshakes get the new certificates, connections already made keep theirs.
 *
 * <p>Thread-safety: immutable.
 */
public final class TlsConfig {
    private final List<CertificateSource> sources;
    private final Optional<LoadedCertificates> loaded;
    private final SSLContext sslContext;
    private final boolean requireSni;
    private final Optional<Duration> watchInterval;
    private final boolean http2;

    private TlsConfig(Builder builder, Optional<LoadedCertificates> loaded, SSLContext sslContext) {
        this.sources = List.copyOf(builder.sources);
        this.loaded = loaded;
        this.sslContext = sslContext;
        this.requireSni = builder.requireSni;
        this.watchInterval = Optional.ofNullable(builder.watchInterval);
        this.http2 = builder.http2;
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the SSL context made from the certificates when this configuration was built, or the one given */
    public SSLContext sslContext() {
        return sslContext;
    }

    /** @return whether ALPN may choose {@code h2} (else only {@code http/1.1}) */
    public boolean http2() {
        return http2;
    }

    /** @return whether a handshake without a known server name (SNI) is refused */
    public boolean requireSni() {
        return requireSni;
    }

    /** @return how often the certificate files are checked for changes, if they are */
    public Optional<Duration> watchInterval() {
        return watchInterval;
    }

    /** @return the host names of the certificates, the default certificate's first; empty for a given SSL context */
    public List<String> serverNames() {
        return loaded.map(certificates -> certificates.keyManager().certificates().stream()
                        .flatMap(certificate -> certificate.names().stream())
                        .distinct()
                        .toList())
                .orElse(List.of());
    }

    /** @return the certificates' files, in the order given; empty for a given SSL context (which cannot be reloaded) */
    List<CertificateSource> sources() {
        return sources;
    }

    /** @return the certificates read at build time; empty for a given SSL context */
    Optional<LoadedCertificates> loaded() {
        return loaded;
    }

    /**
     * Builds a {@link TlsConfig}: one or more certificates ({@link #pem}, {@link #keyStore}), the first being the
     * default, or an {@link #sslContext} made elsewhere. Not thread-safe.
     */
    public static final class Builder {
        private final List<CertificateSource> sources = new ArrayList<>();
        private SSLContext sslContext;
        private boolean requireSni;
        private Duration watchInterval;
        private boolean http2 = true;

        Builder() {}

        /**
         * Adds a certificate chain and its private key in PEM files, as Let's Encrypt and {@code openssl} write them.
         * May be called several times, one certificate per call; the first is the default.
         *
         * @param certificateChain the certificates ({@code -----BEGIN CERTIFICATE-----}), the server's first
         * @param privateKey the key, unencrypted PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}), RSA or EC
         * @return this
         * @throws UncheckedIOException if a file cannot be read
         * @throws IllegalArgumentException if a file holds no usable certificate or key, or the key is not the
         *     certificate's
         */
        public Builder pem(Path certificateChain, Path privateKey) {
            return add(new CertificateSource.Pem(certificateChain, privateKey));
        }

        /**
         * Adds the private key entries of a PKCS#12 keystore, each with its certificate chain. May be called several
         * times; the first certificate of the first call is the default.
         *
         * @param file the keystore ({@code .p12}, {@code .pfx})
         * @param password the keystore's password, which is also the keys'
         * @return this
         * @throws UncheckedIOException if the file cannot be read
         * @throws IllegalArgumentException if the password is wrong or the keystore holds no key
         */
        public Builder keyStore(Path file, String password) {
            return add(new CertificateSource.KeyStoreFile(file, password));
        }

        private Builder add(CertificateSource source) {
            source.load("check"); // fails now, naming the file, rather than at build()
            sources.add(source);
            return this;
        }

        /**
         * Uses an SSL context made elsewhere (a custom key manager...) instead of certificate files; its default
         * parameters are narrowed to TLS 1.2+ and AEAD suites all the same. Such a context is not reloaded, and SNI is
         * whatever its key managers do.
         *
         * @param context the context
         * @return this
         */
        public Builder sslContext(SSLContext context) {
            this.sslContext = Objects.requireNonNull(context, "context");
            return this;
        }

        /**
         * @param required whether a client must name a host the certificates are for (SNI): one that names none gets
         *     the {@code handshake_failure} alert, one that names an unknown host {@code unrecognized_name}; off by
         *     default (such clients get the first certificate)
         * @return this
         */
        public Builder requireSni(boolean required) {
            this.requireSni = required;
            return this;
        }

        /**
         * Checks the certificate files for changes (their modification time or size) at this interval, and reloads
         * them when one changed: new handshakes get the new certificates, connections already made keep theirs. Files
         * that cannot be used (half written, a key that does not match) are logged as a WARNING and the certificates
         * in use are kept; the next change is tried again. The checks run on the server's thread pool, never on a
         * selector.
         *
         * @param interval how often to look, e.g. one minute; at least 10 ms
         * @return this
         */
        public Builder watch(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.toMillis() < 10) {
                throw new IllegalArgumentException("watch interval must be at least 10 ms, was " + interval);
            }
            this.watchInterval = interval;
            return this;
        }

        /**
         * @param enabled whether ALPN may choose HTTP/2 ({@code h2}); on by default
         * @return this
         */
        public Builder http2(boolean enabled) {
            this.http2 = enabled;
            return this;
        }

        /**
         * @return the configuration, with every certificate file read
         * @throws IllegalStateException if no certificate was given, or certificates and an SSL context both were
         * @throws UncheckedIOException if a file cannot be read
         * @throws IllegalArgumentException if a file holds no usable certificate or key
         */
        public TlsConfig build() {
            if (sslContext != null) {
                if (!sources.isEmpty()) {
                    throw new IllegalStateException(
                            "give certificates (pem, keyStore) or an sslContext(context), not both");
                }
                if (requireSni || watchInterval != null) {
                    throw new IllegalStateException(
                            "requireSni and watch apply to certificates from files, not to an sslContext(context)");
                }
                return new TlsConfig(this, Optional.empty(), sslContext);
            }
            if (sources.isEmpty()) {
                throw new IllegalStateException(
                        "no certificate: call pem(cert, key), keyStore(file, password) or sslContext(context)");
            }
            LoadedCertificates certificates = LoadedCertificates.load(sources, requireSni);
            return new TlsConfig(this, Optional.of(certificates), certificates.context());
        }
    }

    /** @return how the status page shows it */
    @Override
    public String toString() {
        return "TlsConfig{" + loaded.map(LoadedCertificates::toString).orElse(sslContext.getProtocol())
                + (requireSni ? ", SNI required" : "")
                + watchInterval.map(interval -> ", watch=" + interval).orElse("") + ", http2=" + http2 + "}";
    }
}
