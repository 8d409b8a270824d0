package dev.quarry.bench.peers;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;

/**
 * Sets up a Netty connection to speak TLS and then, by ALPN, HTTP/2 ({@code h2}) or HTTP/1.1 on the same handlers
 * as the cleartext port ({@link NettyHttp2Handler}, {@link NettyHttp1Handler}).
 *
 * <p>The TLS implementation is the JDK's (JSSE) or BoringSSL through netty-tcnative, as
 * {@link PeerOptions.TlsProvider} says. Cipher suites: Netty's list of those HTTP/2 accepts, which is what its
 * examples and most Netty HTTP/2 servers use.
 *
 * <p>{@link ChannelHandler.Sharable}: one instance (and one {@link SslContext}) serves every connection.
 */
@ChannelHandler.Sharable
final class NettyTlsChannelInitializer extends ChannelInitializer<SocketChannel> {
    private final SslContext sslContext;
    private final String serverName;

    private NettyTlsChannelInitializer(SslContext sslContext, String serverName) {
        this.sslContext = sslContext;
        this.serverName = serverName;
    }

    /**
     * @param tls the keystore and the provider
     * @param serverName the Server header's value
     * @return the initializer
     * @throws Exception if the key cannot be loaded or the provider is not available here
     */
    static NettyTlsChannelInitializer create(PeerOptions.Tls tls, String serverName) throws Exception {
        SslProvider provider = switch (tls.provider()) {
            case JDK -> SslProvider.JDK;
            case OPENSSL -> {
                if (!SslProvider.isAlpnSupported(SslProvider.OPENSSL)) {
                    throw new IllegalStateException("netty-tcnative (OpenSSL/BoringSSL with ALPN) is not"
                            + " available here: " + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
        };
        SslContext context = SslContextBuilder.forServer(TlsKeys.keyManagerFactory(tls))
                .sslProvider(provider)
                .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                .applicationProtocolConfig(new ApplicationProtocolConfig(
                        ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2,
                        ApplicationProtocolNames.HTTP_1_1))
                .build();
        return new NettyTlsChannelInitializer(context, serverName);
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        channel.pipeline().addLast(sslContext.newHandler(channel.alloc()), new AlpnHandler(serverName));
    }

    /** Replaces itself, once the handshake chose a protocol, with that protocol's codec and handler. */
    private static final class AlpnHandler extends ApplicationProtocolNegotiationHandler {
        private final String serverName;

        AlpnHandler(String serverName) {
            // A client that offers no ALPN gets HTTP/1.1, as from Jetty and Quarry.
            super(ApplicationProtocolNames.HTTP_1_1);
            this.serverName = serverName;
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                ctx.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new NettyHttp2Handler(serverName));
            } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
                ctx.pipeline().addLast(new HttpServerCodec(), new NettyHttp1Handler(serverName));
            } else {
                throw new IllegalStateException("unexpected ALPN protocol: " + protocol);
            }
        }
    }
}
