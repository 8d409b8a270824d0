package dev.quarry.server.tls;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Interoperability with {@code openssl s_client}: the versions refused, renegotiation refused, and the certificate per
 * SNI name, as an operator would check them. Skipped where openssl is not installed.
 */
class OpensslTest extends ServerTestBase {
    private static TestCertificates fallback;
    private static TestCertificates other;

    private Path openssl;
    private int port;

    private static synchronized void generate() {
        if (fallback == null) {
            fallback = TestCertificates.create("EC", "openssl-default.test", "openssl-default.test");
            other = TestCertificates.create("RSA", "openssl-other.test", "*.openssl-other.test");
        }
    }

    @BeforeEach
    void findOpenssl() {
        openssl = List.of(Path.of("/usr/bin/openssl"), Path.of("/usr/local/bin/openssl")).stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
        Assumptions.assumeTrue(openssl != null, "openssl is not installed");
        generate();
    }

    private void startServer(boolean requireSni) throws IOException {
        start(builder -> builder.https(
                        "127.0.0.1",
                        0,
                        tls -> tls.pem(fallback.certificatePem(), fallback.keyPem())
                                .pem(other.certificatePem(), other.keyPem())
                                .requireSni(requireSni))
                .route("GET /", (request, response) -> response.send("ok")));
        port = server.connectors().get(1).localPort();
    }

    /** What s_client printed, and whether it ended by itself within the time allowed. */
    private record Run(String output, boolean ended, int exit) {}

    /**
     * Runs s_client against the server.
     *
     * @param input typed on its standard input
     * @param closeInput whether standard input ends after it (s_client then closes the connection)
     * @param arguments more arguments
     */
    private Run sClient(String input, boolean closeInput, String... arguments) throws Exception {
        if (server == null) {
            startServer(false);
        }
        List<String> command =
                new ArrayList<>(List.of(openssl.toString(), "s_client", "-connect", "127.0.0.1:" + port));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException x) {
                    return "(cannot read the output: " + x + ")";
                }
            });
            OutputStream stdin = process.getOutputStream();
            stdin.write(input.getBytes(StandardCharsets.US_ASCII));
            stdin.flush();
            if (closeInput) {
                stdin.close();
            }
            boolean ended = process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
            if (!ended) {
                process.destroy();
                process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            return new Run(output.get(WAIT.toSeconds(), TimeUnit.SECONDS), ended, ended ? process.exitValue() : -1);
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void tls10IsRefused() throws Exception {
        // SECLEVEL=0 lets this openssl offer TLS 1.0 at all: the refusal must come from the server.
        Run run = sClient("", true, "-tls1", "-cipher", "DEFAULT:@SECLEVEL=0");
        assertTrue(run.ended(), run::output);
        assertFalse(run.output().contains("no protocols available"), run::output);
        assertTrue(run.output().contains("alert protocol version"), run::output);
        assertTrue(run.exit() != 0, run::output);
    }

    @Test
    void tls11IsRefused() throws Exception {
        Run run = sClient("", true, "-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0");
        assertTrue(run.ended(), run::output);
        assertTrue(run.output().contains("alert protocol version"), run::output);
    }

    @Test
    void theServerNameSelectsTheCertificate() throws Exception {
        Run named = sClient("", true, "-servername", "www.openssl-other.test");
        assertTrue(named.output().contains("CN = openssl-other.test"), named::output);
        Run unnamed = sClient("", true, "-noservername");
        assertTrue(unnamed.output().contains("CN = openssl-default.test"), unnamed::output);
    }

    @Test
    void renegotiationIsRefused() throws Exception {
        // R asks s_client to renegotiate (TLS 1.2 only); standard input stays open, so s_client only ends if the
        // server closes the connection: a renegotiation the server accepted would leave it running.
        Run run = sClient("R\n", false, "-tls1_2", "-servername", "openssl-default.test");
        assertTrue(run.output().contains("Protocol  : TLSv1.2"), run::output);
        assertTrue(run.output().contains("RENEGOTIATING"), run::output);
        assertTrue(run.ended(), () -> "the renegotiation was not refused: " + run.output());
        assertTrue(run.exit() != 0, run::output);
    }

    @Test
    void requiredSniRefusesUnknownNamesAndClientsThatNameNone() throws Exception {
        // 112 is unrecognized_name, 40 handshake_failure (RFC 8446 §6).
        startServer(true);
        Run unknown = sClient("", true, "-servername", "unknown.test");
        assertTrue(unknown.output().contains("SSL alert number 112"), unknown::output);
        Run none = sClient("", true, "-noservername");
        assertTrue(none.output().contains("SSL alert number 40"), none::output);
        Run known = sClient("", true, "-servername", "openssl-default.test");
        assertTrue(known.output().contains("CN = openssl-default.test"), known::output);
    }
}
