package dev.quarry.server.tls;

import dev.quarry.server.Server;
import dev.quarry.server.test.TestCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

/**
 * The child JVM of {@link TlsEdgeCasesTest#keyUpdatesInTheMiddleOfLargeBodiesAreHandled()}: started with small TLS key
 * limits, it serves HTTPS and echoes a 2 MiB body over HTTP/2 and over HTTP/1.1 with the JDK client, so that both
 * sides update their keys many times mid-stream. Prints {@code OK h2} and {@code OK http/1.1}; exits 1 on a mismatch.
 */
public final class KeyUpdateChild {
    private KeyUpdateChild() {}

    public static void main(String[] args) throws Exception {
        TestCertificates certificates = TestCertificates.ec();
        Server server = Server.builder()
                .name("key-update")
                .https("127.0.0.1", 0, tls -> tls.keyStore(certificates.keyStore(), TestCertificates.PASSWORD))
                .route("POST /echo", (request, response) -> {
                    byte[] body = request.inputStream().readAllBytes();
                    response.send(200, "application/octet-stream", ByteBuffer.wrap(body));
                })
                .build()
                .start();
        int status = 0;
        try {
            byte[] upload = new byte[2 * 1024 * 1024];
            new Random(11).nextBytes(upload);
            for (HttpClient.Version version :
                    new HttpClient.Version[] {HttpClient.Version.HTTP_2, HttpClient.Version.HTTP_1_1}) {
                try (HttpClient client = HttpClient.newBuilder()
                        .version(version)
                        .sslContext(certificates.clientContext())
                        .connectTimeout(Duration.ofSeconds(20))
                        .build()) {
                    HttpResponse<byte[]> response = client.send(
                            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + "/echo"))
                                    .timeout(Duration.ofSeconds(60))
                                    .POST(HttpRequest.BodyPublishers.ofByteArray(upload))
                                    .build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    String name = version == HttpClient.Version.HTTP_2 ? "h2" : "http/1.1";
                    if (response.statusCode() == 200
                            && response.version() == version
                            && Arrays.equals(upload, response.body())) {
                        System.out.println("OK " + name);
                    } else {
                        System.out.println("MISMATCH " + name + ": " + response.statusCode() + " " + response.version()
                                + " " + response.body().length + " bytes, sha-256 " + sha256(response.body()));
                        status = 1;
                    }
                }
            }
        } finally {
            server.stop();
        }
        System.out.flush();
        System.exit(status);
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
