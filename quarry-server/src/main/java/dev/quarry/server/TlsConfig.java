package dev.quarry.server;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The TLS settings of an HTTPS listener ({@link ServerBuilder#https(int, java.util.function.Consumer)}): the server's
 * certificate chain and private key, from PEM files (a certificate chain and a PKCS#8 private key, RSA or EC) or a
 * PKCS#12 keystore, and whether ALPN may choose HTTP/2. Versions are TLS 1.3 and 1.2, cipher suites the JDK's AEAD
 * suites with ephemeral key exchange (see {@link dev.quarry.io.TlsConnectionFactory}).
 *
 * <pre>{@code
 * Server.builder().https(8443, tls -> tls.pem(Path.of("cert.pem"), Path.of("key.pem")));
 * }</pre>
 *
 * <p>Thread-safety: immutable.
 *
 * @param sslContext the context engines are created from
 * @param http2 whether ALPN may choose {@code h2} (else only {@code http/1.1})
 */
public record TlsConfig(SSLContext sslContext, boolean http2) {
    private static final Pattern PEM =
            Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

    /** Checks. */
    public TlsConfig {
        Objects.requireNonNull(sslContext, "sslContext");
    }

    /** @return a builder */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link TlsConfig}; one source of keys must be set. Not thread-safe. */
    public static final class Builder {
        private SSLContext sslContext;
        private boolean http2 = true;

        Builder() {}

        /**
         * Uses a certificate chain and its private key in PEM files, as Let's Encrypt and {@code openssl} write them.
         *
         * @param certificateChain the certificates ({@code -----BEGIN CERTIFICATE-----}), the server's first
         * @param privateKey the key, unencrypted PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}), RSA or EC
         * @return this
         * @throws UncheckedIOException if a file cannot be read
         * @throws IllegalArgumentException if a file holds no usable certificate or key
         */
        public Builder pem(Path certificateChain, Path privateKey) {
            List<Certificate> chain = readCertificates(certificateChain);
            PrivateKey key = readPrivateKey(privateKey);
            char[] password = new char[0];
            try {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                store.setKeyEntry("server", key, password, chain.toArray(Certificate[]::new));
                this.sslContext = context(store, password);
            } catch (GeneralSecurityException | IOException x) {
                throw new IllegalArgumentException(
                        "cannot use the key " + privateKey + " with the certificate " + certificateChain + ": "
                                + x.getMessage(),
                        x);
            }
            return this;
        }

        /**
         * Uses a PKCS#12 keystore holding one private key entry (its certificate chain with it).
         *
         * @param file the keystore ({@code .p12}, {@code .pfx})
         * @param password the keystore's password, which is also the key's
         * @return this
         * @throws UncheckedIOException if the file cannot be read
         * @throws IllegalArgumentException if the password is wrong or the keystore holds no key
         */
        public Builder keyStore(Path file, String password) {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(password, "password");
            char[] secret = password.toCharArray();
            try (InputStream in = Files.newInputStream(file)) {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(in, secret);
                if (Collections.list(store.aliases()).stream().noneMatch(alias -> isKey(store, alias))) {
                    throw new IllegalArgumentException("the keystore " + file + " holds no private key");
                }
                this.sslContext = context(store, secret);
            } catch (IOException x) {
                if (x.getCause() instanceof java.security.UnrecoverableKeyException) {
                    throw new IllegalArgumentException("wrong password for the keystore " + file, x);
                }
                throw new UncheckedIOException("cannot read the keystore " + file + ": " + x.getMessage(), x);
            } catch (GeneralSecurityException x) {
                throw new IllegalArgumentException("cannot use the keystore " + file + ": " + x.getMessage(), x);
            }
            return this;
        }

        /**
         * Uses an SSL context made elsewhere (a custom key manager, SNI...); its default parameters are narrowed to
         * TLS 1.2+ and AEAD suites all the same.
         *
         * @param context the context
         * @return this
         */
        public Builder sslContext(SSLContext context) {
            this.sslContext = Objects.requireNonNull(context, "context");
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
         * @return the configuration
         * @throws IllegalStateException if no certificate was given
         */
        public TlsConfig build() {
            if (sslContext == null) {
                throw new IllegalStateException(
                        "no certificate: call pem(cert, key), keyStore(file, password)" + " or sslContext(context)");
            }
            return new TlsConfig(sslContext, http2);
        }

        private static boolean isKey(KeyStore store, String alias) {
            try {
                return store.isKeyEntry(alias);
            } catch (GeneralSecurityException x) {
                return false;
            }
        }

        private static SSLContext context(KeyStore store, char[] password) throws GeneralSecurityException {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        }
    }

    /**
     * Reads the certificates of a PEM file.
     *
     * @param file the file
     * @return the certificates, in file order
     * @throws IllegalArgumentException if there are none or one is malformed
     */
    static List<Certificate> readCertificates(Path file) {
        List<Certificate> chain = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Block block : blocks(file)) {
                if (block.type().equals("CERTIFICATE")) {
                    chain.add(factory.generateCertificate(new ByteArrayInputStream(block.der())));
                }
            }
        } catch (GeneralSecurityException x) {
            throw new IllegalArgumentException("malformed certificate in " + file + ": " + x.getMessage(), x);
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("no -----BEGIN CERTIFICATE----- block in " + file);
        }
        return chain;
    }

    /**
     * Reads an unencrypted PKCS#8 private key (RSA or EC) from a PEM file.
     *
     * @param file the file
     * @return the key
     * @throws IllegalArgumentException if there is none, it is encrypted, or in a legacy format
     */
    static PrivateKey readPrivateKey(Path file) {
        for (Block block : blocks(file)) {
            switch (block.type()) {
                case "PRIVATE KEY" -> {
                    return pkcs8(file, block.der());
                }
                case "ENCRYPTED PRIVATE KEY" ->
                    throw new IllegalArgumentException("the private key in " + file + " is encrypted; decrypt it with"
                            + " 'openssl pkcs8 -in " + file + " -out key.pem'");
                case "RSA PRIVATE KEY", "EC PRIVATE KEY" ->
                    throw new IllegalArgumentException("the private key in " + file + " is in the legacy "
                            + block.type() + " format; convert it to PKCS#8 with 'openssl pkcs8 -topk8 -nocrypt -in "
                            + file + " -out key.pem'");
                default -> {}
            }
        }
        throw new IllegalArgumentException("no -----BEGIN PRIVATE KEY----- block in " + file);
    }

    private static PrivateKey pkcs8(Path file, byte[] der) {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : List.of("RSA", "EC", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException x) {
                // Not this algorithm: try the next.
            } catch (GeneralSecurityException x) {
                throw new IllegalArgumentException("cannot read the private key in " + file + ": " + x, x);
            }
        }
        throw new IllegalArgumentException("the private key in " + file + " is neither RSA nor EC");
    }

    private record Block(String type, byte[] der) {}

    private static List<Block> blocks(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException x) {
            throw new UncheckedIOException("cannot read " + file + ": " + x.getMessage(), x);
        }
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = PEM.matcher(text);
        while (matcher.find()) {
            String base64 = matcher.group(2).replaceAll("\\s", "");
            try {
                blocks.add(new Block(matcher.group(1), Base64.getDecoder().decode(base64)));
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException("bad base64 in a " + matcher.group(1) + " block of " + file, x);
            }
        }
        return blocks;
    }

    /** @return how the status page shows it */
    @Override
    public String toString() {
        return "TlsConfig{" + sslContext.getProtocol() + ", http2=" + http2 + "}";
    }
}
