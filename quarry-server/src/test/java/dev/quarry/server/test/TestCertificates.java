package dev.quarry.server.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Self-signed certificates for {@code localhost} (and 127.0.0.1), generated once per test JVM with the JDK's
 * {@code keytool}: nothing secret is checked in, and nothing expires in the repository. The same key and certificate
 * are written as a PKCS#12 keystore and as PEM files (PKCS#8 key), so that both ways of configuring TLS are tested.
 *
 * <p>Thread-safety: generation is synchronized; the results are immutable.
 */
public final class TestCertificates {
    /** The keystore password. */
    public static final String PASSWORD = "quarry-test";

    private static TestCertificates ec;
    private static TestCertificates rsa;

    private final Path keyStore;
    private final Path certificatePem;
    private final Path keyPem;
    private final X509Certificate certificate;
    private final SSLContext clientContext;

    private TestCertificates(String algorithm, String commonName, String san)
            throws IOException, GeneralSecurityException, InterruptedException {
        Path directory = Files.createTempDirectory("quarry-test-cert-");
        directory.toFile().deleteOnExit();
        keyStore = directory.resolve("server.p12");
        String java = System.getProperty("java.home");
        List<String> command = new ArrayList<>(List.of(
                Path.of(java, "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                algorithm,
                algorithm.equals("EC") ? "-groupname" : "-keysize",
                algorithm.equals("EC") ? "secp256r1" : "2048",
                "-dname",
                "CN=" + commonName,
                "-validity",
                "30",
                "-storetype",
                "PKCS12",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                PASSWORD));
        if (!san.isEmpty()) {
            command.addAll(List.of("-ext", "SAN=" + san));
        }
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IOException("keytool failed: " + output);
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        PrivateKey key = (PrivateKey) store.getKey("server", PASSWORD.toCharArray());
        certificate = (X509Certificate) store.getCertificate("server");
        certificatePem = directory.resolve("cert.pem");
        keyPem = directory.resolve("key.pem");
        Files.writeString(certificatePem, pem("CERTIFICATE", certificate.getEncoded()));
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));
        for (Path file : List.of(keyStore, certificatePem, keyPem)) {
            file.toFile().deleteOnExit();
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("server", certificate);
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        clientContext = SSLContext.getInstance("TLS");
        clientContext.init(null, trustManagers.getTrustManagers(), null);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** @return an EC (P-256) certificate */
    public static synchronized TestCertificates ec() {
        if (ec == null) {
            ec = generate("EC", "localhost", "dns:localhost,ip:127.0.0.1");
        }
        return ec;
    }

    /** @return an RSA (2048) certificate */
    public static synchronized TestCertificates rsa() {
        if (rsa == null) {
            rsa = generate("RSA", "localhost", "dns:localhost,ip:127.0.0.1");
        }
        return rsa;
    }

    /**
     * Makes a new certificate (never cached: each call a new key) for some host names.
     *
     * @param algorithm {@code EC} or {@code RSA}
     * @param commonName the subject's CN
     * @param dnsNames its DNS subject alternative names, e.g. {@code *.example.com}; none for a certificate that names
     *     its host by CN only
     * @return the certificate, as a keystore and as PEM files
     */
    public static TestCertificates create(String algorithm, String commonName, String... dnsNames) {
        return generate(
                algorithm,
                commonName,
                String.join(
                        ",",
                        java.util.Arrays.stream(dnsNames)
                                .map(name -> "dns:" + name)
                                .toList()));
    }

    private static TestCertificates generate(String algorithm, String commonName, String san) {
        try {
            return new TestCertificates(algorithm, commonName, san);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        } catch (GeneralSecurityException | InterruptedException x) {
            throw new IllegalStateException("cannot generate a test certificate", x);
        }
    }

    /** @return the PKCS#12 keystore, password {@link #PASSWORD} */
    public Path keyStore() {
        return keyStore;
    }

    /** @return the certificate, PEM */
    public Path certificatePem() {
        return certificatePem;
    }

    /** @return the private key, PEM PKCS#8 */
    public Path keyPem() {
        return keyPem;
    }

    /** @return the certificate */
    public X509Certificate certificate() {
        return certificate;
    }

    /** @return a client context that trusts this certificate only */
    public SSLContext clientContext() {
        return clientContext;
    }
}
