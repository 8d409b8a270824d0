package dev.quarry.server.internal.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Where certificates come from: files read when the server is built and again at each reload.
 *
 * <p>Thread-safety: immutable. Cost: {@link #load} reads files (blocking I/O: never on a selector).
 */
public sealed interface CertificateSource {

    /** @return the files read, whose changes a watcher looks for */
    List<Path> files();

    /**
     * Reads the files.
     *
     * @param aliasPrefix prefixes the key manager's aliases of the certificates read, unique per source
     * @return the certificates, at least one
     * @throws UncheckedIOException if a file cannot be read
     * @throws IllegalArgumentException if a file holds no usable certificate or key
     */
    List<ServerCertificate> load(String aliasPrefix);

    /**
     * A certificate chain and its private key in PEM files.
     *
     * @param chain the certificates, the server's first
     * @param key the unencrypted PKCS#8 private key
     */
    record Pem(Path chain, Path key) implements CertificateSource {
        /** Checks. */
        public Pem {
            Objects.requireNonNull(chain, "chain");
            Objects.requireNonNull(key, "key");
        }

        @Override
        public List<Path> files() {
            return List.of(chain, key);
        }

        @Override
        public List<ServerCertificate> load(String aliasPrefix) {
            List<X509Certificate> certificates = PemFiles.readCertificates(chain);
            PrivateKey privateKey = PemFiles.readPrivateKey(key);
            return List.of(ServerCertificate.of(aliasPrefix, certificates, privateKey, chain + " and " + key));
        }

        @Override
        public String toString() {
            return chain + " + " + key;
        }
    }

    /**
     * The private key entries of a PKCS#12 keystore, each a certificate.
     *
     * @param file the keystore
     * @param password the keystore's password, which is also the keys'
     */
    record KeyStoreFile(Path file, String password) implements CertificateSource {
        /** Checks. */
        public KeyStoreFile {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(password, "password");
        }

        @Override
        public List<Path> files() {
            return List.of(file);
        }

        @Override
        public List<ServerCertificate> load(String aliasPrefix) {
            char[] secret = password.toCharArray();
            try (InputStream in = Files.newInputStream(file)) {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(in, secret);
                List<ServerCertificate> certificates = new ArrayList<>();
                for (String alias : Collections.list(store.aliases())) {
                    if (!store.isKeyEntry(alias)) {
                        continue;
                    }
                    Certificate[] chain = store.getCertificateChain(alias);
                    if (!(store.getKey(alias, secret) instanceof PrivateKey key)
                            || chain == null
                            || !(chain[0] instanceof X509Certificate)) {
                        continue;
                    }
                    List<X509Certificate> x509 = Arrays.stream(chain)
                            .map(X509Certificate.class::cast)
                            .toList();
                    certificates.add(ServerCertificate.of(
                            aliasPrefix + "." + alias, x509, key, file + " (entry " + alias + ")"));
                }
                if (certificates.isEmpty()) {
                    throw new IllegalArgumentException("the keystore " + file + " holds no private key");
                }
                return certificates;
            } catch (IOException x) {
                if (x.getCause() instanceof UnrecoverableKeyException) {
                    throw new IllegalArgumentException("wrong password for the keystore " + file, x);
                }
                throw new UncheckedIOException("cannot read the keystore " + file + ": " + x.getMessage(), x);
            } catch (UnrecoverableKeyException x) {
                throw new IllegalArgumentException("wrong password for a key in the keystore " + file, x);
            } catch (GeneralSecurityException x) {
                throw new IllegalArgumentException("cannot use the keystore " + file + ": " + x.getMessage(), x);
            }
        }

        @Override
        public String toString() {
            return file.toString();
        }
    }
}
