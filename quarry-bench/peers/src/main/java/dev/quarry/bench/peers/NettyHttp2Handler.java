package dev.quarry.bench.peers;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.util.HashMap;
import java.util.Map;

/**
 * Answers HTTP/2 requests for {@link Plaintext#PATH} on the connection's channel, from the frames of
 * {@code Http2FrameCodec} (no child channel per stream, the cheaper of Netty's two HTTP/2 server shapes), writing
 * without a flush and flushing once per read, like {@link NettyHttp1Handler}.
 *
 * <p>Confined to its channel's event loop; one instance per connection (it remembers the path of requests whose
 * body is still arriving, which a {@code GET} never has).
 */
final class NettyHttp2Handler extends ChannelInboundHandlerAdapter {
    private static final ByteBuf BODY =
            Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(Plaintext.bodyBytes()));
    private static final AsciiString TEXT_PLAIN = AsciiString.cached(Plaintext.CONTENT_TYPE);
    private static final AsciiString OK = AsciiString.cached("200");
    private static final AsciiString NOT_FOUND = AsciiString.cached("404");
    private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
    private static final AsciiString SERVER = AsciiString.cached("server");
    private static final AsciiString DATE = AsciiString.cached("date");
    private static final AsciiString BODY_LENGTH = AsciiString.cached(Integer.toString(Plaintext.bodyLength()));

    private final AsciiString serverName;
    private final Map<Integer, CharSequence> pathsAwaitingBody = new HashMap<>();

    NettyHttp2Handler(String serverName) {
        this.serverName = AsciiString.cached(serverName);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        // The connection speaks HTTP/2 from now on: the HTTP/1.1 handler behind us would only see flushes.
        if (ctx.pipeline().get(NettyHttp1Handler.class) != null) {
            ctx.pipeline().remove(NettyHttp1Handler.class);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        try {
            if (message instanceof Http2HeadersFrame headers) {
                if (headers.isEndStream()) {
                    respond(ctx, headers.stream(), headers.headers().path());
                } else {
                    pathsAwaitingBody.put(
                            headers.stream().id(), headers.headers().path());
                }
            } else if (message instanceof Http2DataFrame data) {
                // The body is not used: give its flow-control credit back at once.
                if (data.initialFlowControlledBytes() > 0) {
                    ctx.write(
                            new DefaultHttp2WindowUpdateFrame(data.initialFlowControlledBytes()).stream(data.stream()));
                }
                if (data.isEndStream()) {
                    respond(
                            ctx,
                            data.stream(),
                            pathsAwaitingBody.remove(data.stream().id()));
                }
            } else if (message instanceof Http2ResetFrame reset) {
                pathsAwaitingBody.remove(reset.stream().id());
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    private void respond(ChannelHandlerContext ctx, Http2FrameStream stream, CharSequence path) {
        boolean found = path != null && AsciiString.contentEquals(Plaintext.PATH, path);
        Http2Headers headers = new DefaultHttp2Headers(false)
                .status(found ? OK : NOT_FOUND)
                .set(CONTENT_TYPE, TEXT_PLAIN)
                .set(SERVER, serverName)
                .set(DATE, NettyDate.now());
        if (found) {
            headers.set(CONTENT_LENGTH, BODY_LENGTH);
            ctx.write(new DefaultHttp2HeadersFrame(headers, false).stream(stream));
            ctx.write(new DefaultHttp2DataFrame(BODY.duplicate(), true).stream(stream));
        } else {
            ctx.write(new DefaultHttp2HeadersFrame(headers, true).stream(stream));
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public String toString() {
        return "NettyHttp2Handler[requests awaiting their body: " + pathsAwaitingBody.size() + "]";
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
