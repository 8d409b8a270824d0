package dev.quarry.bench.h2;

import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.PreEncodedHttpField;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.FrameListener;
import dev.quarry.http.h2.FrameParser;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Messages;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.h2.RequestHead;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The HTTP/2 frame layer on the hot path of an h2load run, Quarry side by side with Netty's
 * {@code DefaultHttp2FrameReader} and {@code DefaultHttp2FrameWriter}.
 *
 * <p><b>parseRequest</b>: the second request HEADERS frame of an h2load connection, captured from h2load (nghttp2
 * 1.52): {@code :path /}, {@code :scheme http}, {@code :authority}, {@code :method GET}, {@code user-agent}, all from
 * the HPACK tables (14 octets). Both parsers saw the first HEADERS frame of the connection in setup, so their tables
 * are warm and the frame leaves them unchanged. Quarry parses and decodes it into a {@code HeaderBlock}, then applies
 * the request rules ({@link Http2Messages#request}); Netty reads it into validated {@code DefaultHttp2Headers}.
 *
 * <p><b>writeResponse</b>: a plaintext response, HEADERS ({@code :status 200}, content-type, content-length, server,
 * date) and a 13-octet DATA frame with END_STREAM, on a connection whose encoder already sent it once. Quarry writes
 * into a reused heap buffer; Netty's writer allocates from the channel's allocator and writes to a context whose next
 * handler releases the buffers at once (an {@code EmbeddedChannel}, so the pipeline hop is counted for Netty).
 *
 * <p>Run: {@code java -cp quarry-bench/target/quarry-bench.jar org.openjdk.jmh.Main FrameBenchmark -f1 -wi 2 -i 3}
 * (after {@code mvn -q -B package -DskipTests -pl quarry-bench -am}). No {@code BenchMain} suite is registered.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class FrameBenchmark {

    /** h2load's first request HEADERS frame on stream 1, as captured (authority 127.0.0.1:45139). */
    static final byte[] FIRST_HEADERS = HexFormat.of()
            .parseHex("0000210105000000018486418b089d5c0b8170dc65a65b77827a8f9c541c722954d3a5358980aed89707");

    /** h2load's second request HEADERS frame on stream 3: every field from the tables. */
    static final byte[] SECOND_HEADERS = HexFormat.of().parseHex("0000050105000000038486bf82be");

    private static final byte[] EMPTY_SETTINGS = HexFormat.of().parseHex("000000040000000000");
    private static final byte[] BODY = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final String DATE = "Mon, 21 Oct 2013 20:13:21 GMT";

    // Quarry
    private FrameParser quarryParser;
    private final RequestCapture quarryListener = new RequestCapture();
    private ByteBuffer quarryInput;
    private FrameGenerator quarryGenerator;
    private HttpFields quarryFields;
    private final ByteBuffer quarryOutput = ByteBuffer.allocate(4096);

    // Netty
    private DefaultHttp2FrameReader nettyReader;
    private final HeadersCapture nettyListener = new HeadersCapture();
    private ByteBuf nettyInput;
    private DefaultHttp2FrameWriter nettyWriter;
    private Http2Headers nettyHeaders;
    private ByteBuf nettyBody;
    private EmbeddedChannel channel;
    private ChannelHandlerContext ctx;
    private long nettyWritten;

    @Setup
    public void setUp() throws Exception {
        quarryParser = new FrameParser(
                FrameParser.Side.SERVER, quarryListener, new HpackDecoder(), FrameParser.Limits.DEFAULT);
        ByteBuffer first = ByteBuffer.allocate(EMPTY_SETTINGS.length + FIRST_HEADERS.length);
        first.put(EMPTY_SETTINGS).put(FIRST_HEADERS).flip();
        while (quarryParser.parseFrame(first)) {
            // settings, then the first request
        }
        quarryInput = ByteBuffer.wrap(SECOND_HEADERS);
        quarryGenerator = new FrameGenerator(new HpackEncoder());
        quarryFields = new HttpFields()
                .add(new PreEncodedHttpField(HttpHeader.CONTENT_TYPE, "text/plain"))
                .add(HttpHeader.CONTENT_LENGTH, Integer.toString(BODY.length))
                .add(new PreEncodedHttpField(HttpHeader.SERVER, "quarry"))
                .add(new PreEncodedHttpField(HttpHeader.DATE, DATE));

        channel = new EmbeddedChannel(new ReleasingOutbound(), new ChannelInboundHandlerAdapter());
        ctx = channel.pipeline().lastContext();
        nettyReader = new DefaultHttp2FrameReader(true);
        nettyReader.readFrame(ctx, Unpooled.wrappedBuffer(FIRST_HEADERS), nettyListener);
        nettyInput = Unpooled.wrappedBuffer(SECOND_HEADERS);
        nettyWriter = new DefaultHttp2FrameWriter();
        nettyHeaders = new DefaultHttp2Headers()
                .status(AsciiString.of("200"))
                .add(AsciiString.of("content-type"), AsciiString.of("text/plain"))
                .add(AsciiString.of("content-length"), AsciiString.of(Integer.toString(BODY.length)))
                .add(AsciiString.of("server"), AsciiString.of("quarry"))
                .add(AsciiString.of("date"), AsciiString.of(DATE));
        nettyBody =
                Unpooled.unreleasableBuffer(Unpooled.directBuffer(BODY.length).writeBytes(BODY));

        // The first response of the connection warms both encoders; then check that both parsers agree.
        writeResponseQuarry();
        writeResponseNetty();
        RequestHead head = parseRequestQuarry();
        Http2Headers headers = parseRequestNetty();
        if (!head.method().equals("GET")
                || !head.path().equals("/")
                || headers.size() != 5
                || !headers.path().toString().equals(head.path())
                || !headers.authority().toString().equals(head.authority())) {
            throw new IllegalStateException("parsers disagree: " + head + " / " + headers);
        }
    }

    @TearDown
    public void tearDown() {
        channel.finishAndReleaseAll();
    }

    @Benchmark
    public RequestHead parseRequestQuarry() {
        quarryInput.clear();
        quarryParser.parseFrame(quarryInput);
        return Http2Messages.request(quarryListener.streamId, quarryListener.block);
    }

    @Benchmark
    public Http2Headers parseRequestNetty() throws Exception {
        nettyInput.readerIndex(0);
        nettyReader.readFrame(ctx, nettyInput, nettyListener);
        return nettyListener.headers;
    }

    @Benchmark
    public int writeResponseQuarry() {
        ByteBuffer out = quarryOutput;
        out.clear();
        quarryGenerator.responseHeaders(out, 3, 200, quarryFields, false);
        quarryGenerator.dataHeader(out, 3, BODY.length, true);
        out.put(BODY);
        return out.position();
    }

    @Benchmark
    public long writeResponseNetty() {
        ChannelPromise promise = ctx.voidPromise();
        nettyWriter.writeHeaders(ctx, 3, nettyHeaders, 0, false, promise);
        nettyWriter.writeData(ctx, 3, nettyBody.duplicate(), 0, true, promise);
        return nettyWritten;
    }

    /** Keeps the last request block, as a session would until it dispatched the request. */
    private static final class RequestCapture implements FrameListener {
        int streamId;
        HeaderBlock block;

        @Override
        public void onHeaders(int streamId, HeaderBlock block, boolean endStream) {
            this.streamId = streamId;
            this.block = block;
        }

        @Override
        public void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {}

        @Override
        public void onRstStream(int streamId, ErrorCode error) {}

        @Override
        public void onSettings(Http2Settings settings) {}

        @Override
        public void onSettingsAck() {}

        @Override
        public void onPing(long payload, boolean ack) {}

        @Override
        public void onGoAway(int lastStreamId, ErrorCode error, ByteBuffer debugData) {}

        @Override
        public void onWindowUpdate(int streamId, int increment) {}

        @Override
        public void onConnectionError(Http2Exception error) {
            throw new IllegalStateException(error);
        }

        @Override
        public void onStreamError(Http2Exception error) {
            throw new IllegalStateException(error);
        }
    }

    private static final class HeadersCapture extends Http2FrameAdapter {
        Http2Headers headers;

        @Override
        public void onHeadersRead(
                ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endStream) {
            this.headers = headers;
        }
    }

    /** Counts and releases what Netty's writer wrote, at the head of the pipeline. */
    private final class ReleasingOutbound extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof ByteBuf buf) {
                nettyWritten += buf.readableBytes();
            }
            ReferenceCountUtil.release(msg);
            promise.trySuccess();
        }
    }
}
