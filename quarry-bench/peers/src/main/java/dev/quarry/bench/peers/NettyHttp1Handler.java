package dev.quarry.bench.peers;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

/**
 * Answers HTTP/1.1 requests for {@link Plaintext#PATH} the way Netty's fastest servers do: responses are written
 * without a flush and flushed once in {@link #channelReadComplete}, so that the responses to pipelined requests that
 * arrived in one read leave in one write.
 *
 * <p>Confined to its channel's event loop; one instance per connection (it remembers whether the upgrade handler
 * is still in the pipeline). Allocates one response object and one buffer view per request.
 */
final class NettyHttp1Handler extends ChannelInboundHandlerAdapter {
    private static final ByteBuf BODY =
            Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(Plaintext.bodyBytes()));
    private static final AsciiString TEXT_PLAIN = AsciiString.cached(Plaintext.CONTENT_TYPE);
    private static final AsciiString BODY_LENGTH = AsciiString.cached(Integer.toString(Plaintext.bodyLength()));
    private static final AsciiString ZERO = AsciiString.cached("0");
    // The response's header names and values are constants or our own dates: validating them again per response
    // would only cost time.
    private static final HttpHeadersFactory HEADERS =
            DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    private static final HttpHeadersFactory TRAILERS =
            DefaultHttpHeadersFactory.trailersFactory().withValidation(false);

    private final AsciiString serverName;
    private boolean upgradePossible = true;

    NettyHttp1Handler(String serverName) {
        this.serverName = AsciiString.cached(serverName);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        try {
            if (message instanceof HttpRequest request) {
                if (upgradePossible) {
                    // Clients upgrade on their first request: after it, the upgrade handler would only inspect
                    // every request in vain.
                    upgradePossible = false;
                    if (ctx.pipeline().get(HttpServerUpgradeHandler.class) != null) {
                        ctx.pipeline().remove(HttpServerUpgradeHandler.class);
                    }
                }
                respond(ctx, request);
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    private void respond(ChannelHandlerContext ctx, HttpRequest request) {
        if (request.decoderResult().isFailure()) {
            ctx.writeAndFlush(response(HttpResponseStatus.BAD_REQUEST, Unpooled.EMPTY_BUFFER, ZERO))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        FullHttpResponse response = Plaintext.PATH.equals(request.uri())
                ? response(HttpResponseStatus.OK, BODY.duplicate(), BODY_LENGTH)
                : response(HttpResponseStatus.NOT_FOUND, Unpooled.EMPTY_BUFFER, ZERO);
        if (HttpUtil.isKeepAlive(request)) {
            ctx.write(response, ctx.voidPromise());
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, "close");
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private FullHttpResponse response(HttpResponseStatus status, ByteBuf content, AsciiString length) {
        FullHttpResponse response =
                new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content, HEADERS, TRAILERS);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, TEXT_PLAIN)
                .set(HttpHeaderNames.SERVER, serverName)
                .set(HttpHeaderNames.DATE, NettyDate.now())
                .set(HttpHeaderNames.CONTENT_LENGTH, length);
        return response;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public String toString() {
        return "NettyHttp1Handler[" + serverName + (upgradePossible ? ", before the first request]" : "]");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A reset by the load generator at the end of a run is normal; anything else would show in the error counts.
        ctx.close();
    }
}
