package dev.quarry.server.internal.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM files as Let's Encrypt and {@code openssl} write them: certificate chains and unencrypted PKCS#8 private
 * keys (RSA or EC). Legacy and encrypted keys are refused with the command that converts them.
 *
 * <p>Thread-safety: stateless. Cost: reads the file (blocking I/O: never on a selector).
 */
public final class PemFiles {
    private static final Pattern PEM =
            Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

    private PemFiles() {}

    /**
     * Reads the certificates of a PEM file.
     *
     * @param file the file
     * @return the certificates, in file order
     * @throws UncheckedIOException if the file cannot be read
     * @throws IllegalArgumentException if there are none or one is malformed
     */
    public static List<X509Certificate> readCertificates(Path file) {
        List<X509Certificate> chain = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Block block : blocks(file)) {
                if (block.type().equals("CERTIFICATE")) {
                    chain.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
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
     * @throws UncheckedIOException if the file cannot be read
     * @throws IllegalArgumentException if there is none, it is encrypted, or in a legacy format
     */
    public static PrivateKey readPrivateKey(Path file) {
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
}
