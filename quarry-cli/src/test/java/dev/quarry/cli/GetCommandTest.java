package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.server.Server;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code quarry get}: Quarry's client on the command line, against a real server on loopback. */
class GetCommandTest {
    @TempDir
    Path dir;

    private Server server;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @BeforeEach
    void start() throws Exception {
        System.setProperty("quarry.devCert", dir.resolve("dev-cert.p12").toString());
        server = Server.builder()
                .http("127.0.0.1", 0)
                .https("127.0.0.1", 0, tls -> tls.keyStore(DevCertificate.ensure(), DevCertificate.PASSWORD))
                .unix(dir.resolve("quarry.sock"))
                .route("GET /hello", (req, res) -> res.send("Hello over " + req.scheme()))
                .route(
                        "POST /echo",
                        (req, res) -> res.send(
                                req.method() + " " + req.header("X-Test").orElse("-") + " " + req.bodyAsString()))
                .route("GET /moved", (req, res) -> {
                    res.status(302);
                    res.header("Location", "/hello");
                    res.send("");
                })
                .route("GET /missing", (req, res) -> res.sendError(404, "no such thing"))
                .build()
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
        System.clearProperty("quarry.devCert");
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    @Test
    void writesTheContentToStandardOutput() {
        CliRun run = run("get", url("/hello"));
        assertEquals(0, run.status(), run.err());
        assertEquals("Hello over http", run.out());
        assertEquals("", run.err());
    }

    @Test
    void verboseShowsBothHeadsOnStandardError() {
        CliRun run = run("get", "-v", "-H", "X-Test: yes, really", url("/hello"));
        assertEquals(0, run.status(), run.err());
        assertTrue(run.err().contains("> GET /hello HTTP/1.1\n> Host: 127.0.0.1:" + server.port()), run.err());
        assertTrue(run.err().contains("> X-Test: yes, really"), run.err());
        assertTrue(run.err().contains("< HTTP/1.1 200"), run.err());
        assertTrue(run.err().contains("< Content-Length: 15"), run.err());
    }

    @Test
    void postsDataFromTheCommandLineOrAFileAndWritesToAFile() throws Exception {
        Path body = Files.writeString(dir.resolve("body.txt"), "from a file");
        Path output = dir.resolve("out.txt");
        CliRun run = run("get", "-d", "@" + body, "-H", "X-Test: 1", "-o", output.toString(), url("/echo"));
        assertEquals(0, run.status(), run.err());
        assertEquals("POST 1 from a file", Files.readString(output));
        assertEquals(
                "POST - inline", run("get", "--data", "inline", url("/echo")).out());
    }

    @Test
    void followsRedirectsUnlessToldNot() {
        assertEquals("Hello over http", run("get", url("/moved")).out());
        CliRun notFollowed = run("get", "--no-follow", "-v", url("/moved"));
        assertEquals(0, notFollowed.status());
        assertTrue(notFollowed.err().contains("< HTTP/1.1 302"), notFollowed.err());
    }

    @Test
    void anErrorStatusExitsWithOneAndShowsTheContent() {
        CliRun run = run("get", url("/missing"));
        assertEquals(1, run.status());
        assertTrue(run.out().contains("no such thing"), run.out());
    }

    @Test
    void http2SpeaksH2cByPriorKnowledgeAndH2OverTls() {
        CliRun h2c = run("get", "--http2", "-v", url("/hello"));
        assertEquals(0, h2c.status(), h2c.err());
        assertEquals("Hello over http", h2c.out());
        assertTrue(h2c.err().contains("< HTTP/2.0 200"), h2c.err());
        String https = "https://localhost:" + server.connectors().get(1).localPort() + "/hello";
        CliRun h2 = run("get", "--http2", "-k", "-v", https);
        assertEquals(0, h2.status(), h2.err());
        assertEquals("Hello over https", h2.out());
        assertTrue(h2.err().contains("< HTTP/2.0 200"), h2.err());
    }

    @Test
    void httpsWithADevelopmentCertificateNeedsInsecure() {
        String https = "https://localhost:" + server.connectors().get(1).localPort() + "/hello";
        CliRun refused = run("get", https);
        assertEquals(1, refused.status());
        assertTrue(refused.err().contains("TLS handshake with https://localhost:"), refused.err());
        CliRun run = run("get", "-k", https);
        assertEquals(0, run.status(), run.err());
        assertEquals("Hello over https", run.out());
    }

    @Test
    void talksToAUnixDomainSocket() {
        CliRun run = run("get", "--unix", dir.resolve("quarry.sock").toString(), "http://localhost/hello");
        assertEquals(0, run.status(), run.err());
        assertEquals("Hello over http", run.out());
    }

    @Test
    void goesThroughAProxyWithItsCredentials() throws Exception {
        // A proxy that answers every request itself, with the request line and credentials it got.
        try (ServerSocket proxy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try (Socket socket = proxy.accept()) {
                    BufferedReader in = new BufferedReader(
                            new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
                    String line = in.readLine();
                    String authorization = "-";
                    for (String field = in.readLine(); !field.isEmpty(); field = in.readLine()) {
                        if (field.startsWith("Proxy-Authorization: ")) {
                            authorization = field.substring(21);
                        }
                    }
                    String body = line + " " + authorization;
                    socket.getOutputStream()
                            .write(("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: " + body.length()
                                            + "\r\n\r\n" + body)
                                    .getBytes(StandardCharsets.ISO_8859_1));
                } catch (IOException x) {
                    // the test fails on what the client printed
                }
            });
            CliRun run = run("get", "-x", "user:secret@127.0.0.1:" + proxy.getLocalPort(), "http://example.test/a?b");
            assertEquals(0, run.status(), run.err());
            assertEquals("GET http://example.test/a?b HTTP/1.1 Basic dXNlcjpzZWNyZXQ=", run.out());
        }
    }

    @Test
    void aBadProxyIsNamed() {
        CliRun port = run("get", "--proxy", "127.0.0.1", url("/hello"));
        assertEquals(2, port.status());
        assertTrue(port.err().contains("--proxy needs HOST:PORT"), port.err());
        CliRun both = run("get", "-x", "127.0.0.1:3128", "--unix", "/tmp/none.sock", url("/hello"));
        assertEquals(2, both.status());
        assertTrue(both.err().contains("--proxy and --unix exclude each other"), both.err());
    }

    @Test
    void idleTimeoutFailsARequestThatTheServerNeverAnswers() throws Exception {
        // Nobody accepts: the kernel completes the connect and takes the request, and no byte ever comes back.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CliRun run = run(
                    "get",
                    "--idle-timeout",
                    "300ms",
                    "--max-time",
                    "20s",
                    "http://127.0.0.1:" + silent.getLocalPort() + "/never");
            assertEquals(1, run.status(), run.err());
            assertTrue(run.err().contains("idle timeout of 300 ms expired waiting for the response head"), run.err());
        }
        CliRun zero = run("get", "--idle-timeout", "0", url("/hello"));
        assertEquals(2, zero.status());
        assertTrue(zero.err().contains("idleTimeout must be positive"), zero.err());
    }

    @Test
    void mistakesAreNamed() {
        CliRun none = run("get");
        assertEquals(2, none.status());
        assertTrue(none.err().contains("give exactly one URL"), none.err());
        CliRun ftp = run("get", "ftp://localhost/");
        assertEquals(2, ftp.status());
        assertTrue(ftp.err().contains("unsupported scheme 'ftp'"), ftp.err());
        CliRun header = run("get", "-H", "nocolon", url("/hello"));
        assertEquals(2, header.status());
        assertTrue(header.err().contains("--header must be 'Name: value'"), header.err());
        CliRun refused = run("get", "http://127.0.0.1:1/");
        assertEquals(1, refused.status());
        assertTrue(refused.err().contains("cannot connect to http://127.0.0.1:1"), refused.err());
    }
}
