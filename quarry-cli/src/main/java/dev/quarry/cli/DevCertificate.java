package dev.quarry.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The development certificate that {@code --https-port} uses when no certificate is given: a self-signed EC P-256
 * certificate for {@code localhost}, {@code 127.0.0.1} and {@code ::1}, created on first use with the JDK's
 * {@code keytool} (the JDK has no public API to make one) and kept in a PKCS#12 file, so that browsers see the same
 * certificate from run to run. Browsers warn about it: it is for trying HTTPS and HTTP/2 locally, not for serving.
 */
final class DevCertificate {
    /** The keystore's password; the file only holds a throwaway key for localhost. */
    static final String PASSWORD = "quarry-dev";

    private DevCertificate() {}

    /**
     * @return where the certificate is kept: {@code ~/.quarry/dev-cert.p12}, or the {@code quarry.devCert} system
     *     property
     */
    static Path location() {
        String configured = System.getProperty("quarry.devCert");
        return configured != null
                ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".quarry", "dev-cert.p12");
    }

    /**
     * Makes the certificate if it does not exist yet.
     *
     * @return the keystore file
     * @throws Options.UsageException if it cannot be made (no {@code keytool} in this Java, a read-only home)
     */
    static Path ensure() {
        Path file = location();
        if (Files.isRegularFile(file)) {
            return file;
        }
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        if (!Files.isExecutable(keytool)) {
            throw new Options.UsageException("no certificate given and no keytool in " + System.getProperty("java.home")
                    + " to make a development one: pass --cert FILE --key FILE or --keystore FILE");
        }
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Process process = new ProcessBuilder(List.of(
                            keytool.toString(),
                            "-genkeypair",
                            "-alias",
                            "localhost",
                            "-keyalg",
                            "EC",
                            "-groupname",
                            "secp256r1",
                            "-sigalg",
                            "SHA256withECDSA",
                            "-dname",
                            "CN=localhost",
                            "-ext",
                            "SAN=dns:localhost,ip:127.0.0.1,ip:::1",
                            "-validity",
                            "825",
                            "-storetype",
                            "PKCS12",
                            "-keystore",
                            file.toString(),
                            "-storepass",
                            PASSWORD,
                            "-keypass",
                            PASSWORD))
                    .redirectErrorStream(true)
                    .start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                Files.deleteIfExists(file);
                throw new Options.UsageException("keytool could not make a development certificate: " + output.strip());
            }
        } catch (IOException x) {
            throw new Options.UsageException(
                    "cannot make a development certificate in " + file + ": " + x.getMessage());
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new Options.UsageException("interrupted while making a development certificate");
        }
        System.getLogger(DevCertificate.class.getName())
                .log(
                        System.Logger.Level.INFO,
                        "Created a self-signed development certificate for localhost in " + file
                                + " (browsers warn about it; --cert/--key or --keystore use yours)");
        return file;
    }
}
