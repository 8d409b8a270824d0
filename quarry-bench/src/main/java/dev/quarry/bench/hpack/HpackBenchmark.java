package dev.quarry.bench.hpack;

import dev.quarry.http.hpack.HeaderField;
import dev.quarry.http.hpack.HeaderSink;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackException;
import dev.quarry.http.hpack.HpackOutput;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * HPACK decode and encode of one header block on a connection whose dynamic table is already warm, Quarry side by side
 * with Netty ({@code DefaultHttp2HeadersDecoder/Encoder}) and Jetty ({@code org.eclipse.jetty.http2.hpack}).
 *
 * <p>Workloads: {@code request} is a browser-like request of 12 fields (the second request on the connection: every
 * field but {@code :path} is in the dynamic table); {@code response} is a plaintext-benchmark response ({@code :status
 * 200}, {@code content-type}, {@code server}, {@code date}, {@code content-length}), also the second on its
 * connection.
 *
 * <p>Decoding: every decoder reads the same octets (written by Quarry's encoder: indexed fields plus one literal without
 * indexing, so repeating the block leaves the table unchanged) into its natural result: Netty and Jetty build their
 * header objects (Netty validating names, Jetty building the request URI), Quarry's sink checks each name with
 * {@link HpackDecoder#isValidHttp2Name} and stores the pair in a reused array, as an HTTP/2 session would. Encoding:
 * each encoder encodes its own header container (prepared once) after having encoded the same list before, into a
 * reused heap buffer.
 *
 * <p>Run: {@code java -cp quarry-bench/target/quarry-bench.jar org.openjdk.jmh.Main HpackBenchmark -f1 -wi 2 -i 3}
 * (after {@code mvn -q -B package -DskipTests -pl quarry-bench -am}). No {@code BenchMain} suite is registered.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class HpackBenchmark {

    @Param({"request", "response"})
    public String workload;

    private static final String[][] REQUEST_1 = {
        {":method", "GET"},
        {":scheme", "https"},
        {":authority", "www.example.com"},
        {":path", "/"},
        {
            "user-agent",
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
        },
        {"accept", "*/*"},
        {"accept-encoding", "gzip, deflate, br, zstd"},
        {"accept-language", "en-US,en;q=0.9"},
        {"referer", "https://www.example.com/"},
        {"sec-fetch-dest", "script"},
        {"sec-fetch-mode", "no-cors"},
        {"cookie", "session=8f14e45fceea167a5a36dedd4bea2543; theme=dark"}
    };

    private static final String REQUEST_2_PATH = "/assets/app.js?v=3f2a9c";

    private static final String[][] RESPONSE = {
        {":status", "200"},
        {"content-type", "text/plain"},
        {"server", "quarry"},
        {"date", "Mon, 21 Oct 2013 20:13:21 GMT"},
        {"content-length", "13"}
    };

    /** The benchmarked block: the second of its connection. */
    private String[][] fields;

    private byte[] wire;

    private HpackDecoder quarryDecoder;
    private final FieldArraySink quarrySink = new FieldArraySink();
    private ByteBuffer quarryWire;
    private HpackEncoder quarryEncoder;
    private List<HeaderField> quarryFields;
    private final HpackOutput quarryOut = new HpackOutput(4096);

    private DefaultHttp2HeadersDecoder nettyDecoder;
    private ByteBuf nettyWire;
    private DefaultHttp2HeadersEncoder nettyEncoder;
    private Http2Headers nettyFields;
    private final ByteBuf nettyOut = Unpooled.buffer(4096);

    private org.eclipse.jetty.http2.hpack.HpackDecoder jettyDecoder;
    private ByteBuffer jettyWire;
    private org.eclipse.jetty.http2.hpack.HpackEncoder jettyEncoder;
    private MetaData jettyFields;
    private final ByteBuffer jettyOut = ByteBuffer.allocate(4096);

    @Setup
    public void setUp() throws Exception {
        String[][] first;
        if (workload.equals("request")) {
            first = REQUEST_1;
            fields = REQUEST_1.clone();
            fields[3] = new String[] {":path", REQUEST_2_PATH};
        } else {
            first = RESPONSE;
            fields = RESPONSE;
        }

        // The wire every decoder reads: Quarry's encoding of the first block, then of the second.
        HpackEncoder writer = new HpackEncoder();
        HpackOutput firstBlock = new HpackOutput();
        writer.encode(quarryList(first), firstBlock);
        HpackOutput secondBlock = new HpackOutput();
        writer.encode(quarryList(fields), secondBlock);
        wire = secondBlock.toByteArray();

        quarryDecoder = new HpackDecoder();
        quarryDecoder.decode(firstBlock.asByteBuffer(), quarrySink);
        quarryWire = ByteBuffer.wrap(wire);
        quarryFields = quarryList(fields);
        quarryEncoder = new HpackEncoder();
        quarryOut.clear();
        quarryEncoder.encode(quarryList(first), quarryOut);

        nettyDecoder = new DefaultHttp2HeadersDecoder(true);
        nettyDecoder.decodeHeaders(1, Unpooled.wrappedBuffer(firstBlock.toByteArray()));
        nettyWire = Unpooled.wrappedBuffer(wire);
        nettyFields = nettyHeaders(fields);
        nettyEncoder = new DefaultHttp2HeadersEncoder();
        nettyOut.clear();
        nettyEncoder.encodeHeaders(1, nettyHeaders(first), nettyOut);

        jettyDecoder = new org.eclipse.jetty.http2.hpack.HpackDecoder(64 * 1024, System::nanoTime);
        jettyDecoder.setMaxTableCapacity(4096);
        jettyDecoder.decode(ByteBuffer.wrap(firstBlock.toByteArray()));
        jettyWire = ByteBuffer.wrap(wire);
        jettyFields = jettyMetaData(fields);
        jettyEncoder = new org.eclipse.jetty.http2.hpack.HpackEncoder();
        jettyEncoder.setMaxTableCapacity(4096);
        jettyEncoder.setTableCapacity(4096);
        jettyOut.clear();
        jettyEncoder.encode(jettyOut, jettyMetaData(first));

        // Reach the steady state once, and check that every decoder agrees on the block.
        encodeQuarry();
        encodeNetty();
        encodeJetty();
        int expected = fields.length;
        if (decodeQuarry() != expected || decodeNetty().size() != expected) {
            throw new IllegalStateException("decoders disagree on " + workload);
        }
        decodeJetty();
    }

    @Benchmark
    public int decodeQuarry() throws HpackException {
        quarryWire.clear();
        quarrySink.count = 0;
        quarryDecoder.decode(quarryWire, quarrySink);
        return quarrySink.count;
    }

    @Benchmark
    public Http2Headers decodeNetty() throws Http2Exception {
        nettyWire.readerIndex(0);
        return nettyDecoder.decodeHeaders(3, nettyWire);
    }

    @Benchmark
    public MetaData decodeJetty() throws Exception {
        jettyWire.clear();
        return jettyDecoder.decode(jettyWire);
    }

    @Benchmark
    public int encodeQuarry() {
        quarryOut.clear();
        quarryEncoder.encode(quarryFields, quarryOut);
        return quarryOut.size();
    }

    @Benchmark
    public int encodeNetty() throws Http2Exception {
        nettyOut.clear();
        nettyEncoder.encodeHeaders(3, nettyFields, nettyOut);
        return nettyOut.writerIndex();
    }

    @Benchmark
    public int encodeJetty() throws Exception {
        jettyOut.clear();
        jettyEncoder.encode(jettyOut, jettyFields);
        return jettyOut.position();
    }

    private static List<HeaderField> quarryList(String[][] fields) {
        List<HeaderField> list = new ArrayList<>();
        for (String[] field : fields) {
            list.add(new HeaderField(field[0], field[1]));
        }
        return list;
    }

    private static Http2Headers nettyHeaders(String[][] fields) {
        Http2Headers headers = new DefaultHttp2Headers();
        for (String[] field : fields) {
            headers.add(AsciiString.of(field[0]), AsciiString.of(field[1]));
        }
        return headers;
    }

    private static MetaData jettyMetaData(String[][] fields) {
        HttpFields.Mutable headers = HttpFields.build();
        String method = null;
        String scheme = null;
        String authority = null;
        String path = null;
        int status = 0;
        long contentLength = -1;
        for (String[] field : fields) {
            switch (field[0]) {
                case ":method" -> method = field[1];
                case ":scheme" -> scheme = field[1];
                case ":authority" -> authority = field[1];
                case ":path" -> path = field[1];
                case ":status" -> status = Integer.parseInt(field[1]);
                default -> {
                    headers.add(field[0], field[1]);
                    if (field[0].equals("content-length")) {
                        contentLength = Long.parseLong(field[1]);
                    }
                }
            }
        }
        if (method != null) {
            HttpURI uri = HttpURI.build().scheme(scheme).authority(authority).pathQuery(path);
            return new MetaData.Request(method, uri, HttpVersion.HTTP_2, headers, contentLength);
        }
        return new MetaData.Response(status, null, HttpVersion.HTTP_2, headers, contentLength);
    }

    /** What an HTTP/2 session's sink would do: check the name, keep the pair in a reused array. */
    private static final class FieldArraySink implements HeaderSink {
        private final String[] names = new String[64];
        private final String[] values = new String[64];
        int count;

        @Override
        public void header(String name, String value) {
            if (!HpackDecoder.isValidHttp2Name(name)) {
                throw new IllegalArgumentException("invalid name " + name);
            }
            names[count] = name;
            values[count] = value;
            count++;
        }
    }
}
