package dev.quarry.bench.peers;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.util.AsciiString;

/**
 * Sets up a Netty connection to speak HTTP/1.1, or HTTP/2 when the client starts with the HTTP/2 preface (prior
 * knowledge) or asks for {@code Upgrade: h2c}.
 *
 * <p>{@link CleartextHttp2ServerUpgradeHandler} looks at the first bytes and replaces itself: with the HTTP/2 frame
 * codec and {@link NettyHttp2Handler} for the preface, otherwise with the HTTP/1.1 codec and the upgrade handler,
 * which {@link NettyHttp1Handler} removes at the first request that does not upgrade, so that a plain HTTP/1.1
 * connection runs on the same two handlers as a Netty server without h2c.
 *
 * <p>Stateless and {@link ChannelHandler.Sharable}: one instance serves every connection.
 */
@ChannelHandler.Sharable
final class NettyChannelInitializer extends ChannelInitializer<SocketChannel> {
    private final String serverName;

    NettyChannelInitializer(String serverName) {
        this.serverName = serverName;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        HttpServerCodec http1 = new HttpServerCodec();
        HttpServerUpgradeHandler upgrade = new HttpServerUpgradeHandler(
                http1,
                protocol -> AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                        ? new Http2ServerUpgradeCodec(
                                Http2FrameCodecBuilder.forServer().build(), new NettyHttp2Handler(serverName))
                        : null);
        ChannelHandler priorKnowledge = new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel h2) {
                h2.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new NettyHttp2Handler(serverName));
            }
        };
        channel.pipeline()
                .addLast(new CleartextHttp2ServerUpgradeHandler(http1, upgrade, priorKnowledge))
                .addLast(new NettyHttp1Handler(serverName));
    }
}
