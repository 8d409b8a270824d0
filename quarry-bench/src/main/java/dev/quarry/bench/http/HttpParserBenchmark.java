package dev.quarry.bench.http;

import dev.quarry.http.BadMessageException;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpVersion;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.http.h1.HttpGenerator;
import dev.quarry.http.h1.HttpParser;
import dev.quarry.http.h1.HttpRequestListener;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.MetaData;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * HTTP/1.1 parsing and response-head generation, Quarry side by side with Jetty 12's {@code HttpParser} and
 * {@code HttpGenerator}, on the TechEmpower plaintext exchange.
 *
 * <ul>
 *   <li>{@code *Parse}: one {@code GET /plaintext} request with Host, Accept and {@code Connection: keep-alive}, parsed
 *       from a direct buffer by a parser that lives as long as the connection (reset between requests, caches warm);
 *   <li>{@code *ParsePipelined16}: the same request 16 times in one direct buffer, parsed one message at a time;
 *   <li>{@code *Generate}: the head of the plaintext response ({@code 200}, Server, Date, Content-Type, Content-Length)
 *       into a direct buffer.
 * </ul>
 * Both parsers report the request line and each field to a listener that keeps them; neither benchmark includes I/O.
 *
 * <p>Run: {@code java -cp quarry-bench/target/quarry-bench.jar org.openjdk.jmh.Main HttpParserBenchmark -f1 -wi 3 -i 3
 * -prof gc} (build first with {@code mvn -q -B package -DskipTests -pl quarry-bench -am}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class HttpParserBenchmark {
    static final String REQUEST = "GET /plaintext HTTP/1.1\r\n"
            + "Host: localhost:8080\r\n"
            + "Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\n"
            + "Connection: keep-alive\r\n"
            + "\r\n";
    static final int PIPELINED = 16;
    static final String DATE = "Wed, 01 Jan 2025 00:00:00 GMT";
    static final int BODY_LENGTH = "Hello, World!".length();

    private ByteBuffer single;
    private ByteBuffer pipelined;
    private ByteBuffer out;

    private QuarrySink quarrySink;
    private HttpParser quarryParser;
    private HttpGenerator quarryGenerator;
    private HttpFields quarryFields;

    private JettySink jettySink;
    private org.eclipse.jetty.http.HttpParser jettyParser;
    private org.eclipse.jetty.http.HttpGenerator jettyGenerator;
    private MetaData.Response jettyResponse;
    private ByteBuffer jettyContent;

    private static ByteBuffer direct(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    @Setup
    public void setUp() {
        single = direct(REQUEST);
        pipelined = direct(REQUEST.repeat(PIPELINED));
        out = ByteBuffer.allocateDirect(1024);

        quarrySink = new QuarrySink();
        quarryParser = new HttpParser(quarrySink);
        quarryGenerator = new HttpGenerator();
        quarryFields = HttpFields.of(
                        new PreEncodedHttpField(HttpHeader.SERVER, "Quarry"),
                        new PreEncodedHttpField(HttpHeader.DATE, DATE),
                        new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain"))
                .asImmutable();

        jettySink = new JettySink();
        jettyParser = new org.eclipse.jetty.http.HttpParser(jettySink);
        jettyGenerator = new org.eclipse.jetty.http.HttpGenerator();
        org.eclipse.jetty.http.HttpFields jettyFields = org.eclipse.jetty.http.HttpFields.build()
                .add(new org.eclipse.jetty.http.PreEncodedHttpField(org.eclipse.jetty.http.HttpHeader.SERVER, "Jetty"))
                .add(new org.eclipse.jetty.http.PreEncodedHttpField(org.eclipse.jetty.http.HttpHeader.DATE, DATE))
                .add(new org.eclipse.jetty.http.PreEncodedHttpField(
                        org.eclipse.jetty.http.HttpHeader.CONTENT_TYPE, "text/plain"))
                .asImmutable();
        jettyResponse =
                new MetaData.Response(200, null, org.eclipse.jetty.http.HttpVersion.HTTP_1_1, jettyFields, BODY_LENGTH);
        jettyContent = direct("Hello, World!");
        verify();
    }

    // Both sides must do the whole job, or the comparison means nothing.
    private void verify() {
        int requests = quarryParsePipelined16();
        if (requests != PIPELINED || quarrySink.fields != 3 || !"/plaintext".equals(quarrySink.target)) {
            throw new IllegalStateException(
                    "quarry parsed " + requests + " requests, " + quarrySink.fields + " fields");
        }
        requests = jettyParsePipelined16();
        if (requests != PIPELINED || jettySink.fields != 3 || !"/plaintext".equals(jettySink.target)) {
            throw new IllegalStateException("jetty parsed " + requests + " requests, " + jettySink.fields + " fields");
        }
        String quarryHead = head(quarryGenerate());
        String jettyHead = head(jettyGenerate());
        if (!quarryHead.endsWith("Content-Length: 13\r\n\r\n")
                || !jettyHead.contains("Content-Length: 13\r\n")
                || quarryHead.replace("Quarry", "Jetty").length() != jettyHead.length()) {
            throw new IllegalStateException("different heads:\n" + quarryHead + "\n" + jettyHead);
        }
    }

    private String head(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate().flip();
        return StandardCharsets.US_ASCII.decode(copy).toString();
    }

    @Benchmark
    public int quarryParse() {
        single.position(0);
        quarryParser.parse(single);
        quarryParser.reset();
        return quarrySink.fields;
    }

    @Benchmark
    public int quarryParsePipelined16() {
        pipelined.position(0);
        int requests = 0;
        while (pipelined.hasRemaining()) {
            quarryParser.parse(pipelined);
            if (quarryParser.isComplete()) {
                requests++;
            }
            quarryParser.reset();
        }
        return requests;
    }

    @Benchmark
    public int jettyParse() {
        single.position(0);
        jettyParser.parseNext(single);
        jettyParser.reset();
        return jettySink.fields;
    }

    @Benchmark
    public int jettyParsePipelined16() {
        pipelined.position(0);
        int requests = 0;
        while (pipelined.hasRemaining()) {
            jettyParser.parseNext(pipelined);
            if (jettyParser.isComplete()) {
                requests++;
            }
            jettyParser.reset();
        }
        return requests;
    }

    @Benchmark
    public ByteBuffer quarryGenerate() {
        out.clear();
        quarryGenerator.reset();
        quarryGenerator.writeResponseHead(out, HttpVersion.HTTP_1_1, "GET", 200, quarryFields, BODY_LENGTH, true);
        return out;
    }

    @Benchmark
    public ByteBuffer jettyGenerate() {
        // Jetty's buffers are in flush mode: empty is position = limit = 0.
        out.clear().limit(0);
        jettyContent.position(0);
        jettyGenerator.reset();
        try {
            while (true) {
                switch (jettyGenerator.generateResponse(jettyResponse, false, out, null, jettyContent, true)) {
                    case FLUSH -> jettyContent.position(jettyContent.limit()); // the head stays in `out`
                    case DONE, SHUTDOWN_OUT -> {
                        return out.position(out.limit());
                    }
                    case CONTINUE -> {}
                    default -> throw new IllegalStateException("unexpected generator result");
                }
            }
        } catch (java.io.IOException x) {
            throw new IllegalStateException(x);
        }
    }

    /** Keeps what a server needs from a request, as a server's connection would. */
    static final class QuarrySink implements HttpRequestListener {
        String method;
        String target;
        int fields;
        HttpField last;

        @Override
        public void startRequest(String method, String target, HttpVersion version) {
            this.method = method;
            this.target = target;
            this.fields = 0;
        }

        @Override
        public void header(HttpField field) {
            last = field;
            fields++;
        }

        @Override
        public boolean headerComplete() {
            return false;
        }

        @Override
        public boolean content(ByteBuffer chunk) {
            return false;
        }

        @Override
        public boolean contentComplete() {
            return false;
        }

        @Override
        public boolean messageComplete() {
            return true;
        }

        @Override
        public void badMessage(BadMessageException failure) {
            throw failure;
        }

        @Override
        public void earlyEOF() {
            throw new IllegalStateException("early EOF");
        }
    }

    /** The same for Jetty. */
    static final class JettySink implements org.eclipse.jetty.http.HttpParser.RequestHandler {
        String method;
        String target;
        int fields;
        org.eclipse.jetty.http.HttpField last;

        @Override
        public void startRequest(String method, String uri, org.eclipse.jetty.http.HttpVersion version) {
            this.method = method;
            this.target = uri;
            this.fields = 0;
        }

        @Override
        public void parsedHeader(org.eclipse.jetty.http.HttpField field) {
            last = field;
            fields++;
        }

        @Override
        public boolean headerComplete() {
            return false;
        }

        @Override
        public boolean content(ByteBuffer chunk) {
            return false;
        }

        @Override
        public boolean contentComplete() {
            return false;
        }

        @Override
        public boolean messageComplete() {
            return true;
        }

        @Override
        public void earlyEOF() {
            throw new IllegalStateException("early EOF");
        }

        @Override
        public void badMessage(HttpException failure) {
            throw new IllegalStateException("bad message " + failure);
        }
    }
}
