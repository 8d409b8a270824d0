package dev.quarry.bench.peers;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.ResourceLeakDetector;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Netty 4.2 with one event-loop group of the default size (twice the available processors) that both accepts and
 * serves, HTTP/1.1 and h2c on one port ({@link NettyChannelInitializer}), or with TLS options h2 and HTTP/1.1 by ALPN
 * ({@link NettyTlsChannelInitializer}).
 *
 * <p>Leak detection is disabled, as production deployments tuned for throughput do (its default sampling records a
 * stack trace for one buffer allocation in 128). Netty has no idle timeout unless a handler adds one, so the
 * options' idle timeout is satisfied by doing nothing.
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread.
 */
final class NettyPeer implements PeerServer {
    private final EventLoopGroup group;
    private final Channel channel;
    private final NettyTransport transport;
    private final PeerOptions.Tls tls;

    private NettyPeer(EventLoopGroup group, Channel channel, NettyTransport transport, PeerOptions.Tls tls) {
        this.group = group;
        this.channel = channel;
        this.transport = transport;
        this.tls = tls;
    }

    static NettyPeer start(PeerOptions options, NettyTransport transport, String serverName) throws Exception {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(transport.ioHandlerFactory());
        try {
            Channel channel = new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannelType())
                    .childHandler(
                            options.secure()
                                    ? NettyTlsChannelInitializer.create(options.tls(), serverName)
                                    : new NettyChannelInitializer(serverName))
                    .bind(options.host(), options.port())
                    .sync()
                    .channel();
            return new NettyPeer(group, channel, transport, options.tls());
        } catch (Exception e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    @Override
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public String protocols() {
        if (tls != null) {
            return "TLS (" + tls.provider().id() + "): h2, http/1.1 by ALPN";
        }
        return "http/1.1, h2c (prior knowledge, upgrade)";
    }

    @Override
    public void close() {
        try {
            channel.close().sync();
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping " + this, e);
        }
    }

    @Override
    public String toString() {
        return "NettyPeer[" + transport + " " + channel + "]";
    }
}
