package dev.quarry.bench.peers;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * The Netty transports a peer can run on. Immutable; thread-safe.
 */
enum NettyTransport {
    /** The JDK's selector (NIO), as Quarry and Jetty use. */
    NIO {
        @Override
        IoHandlerFactory ioHandlerFactory() {
            return NioIoHandler.newFactory();
        }

        @Override
        Class<? extends ServerSocketChannel> serverChannelType() {
            return NioServerSocketChannel.class;
        }
    },
    /** Netty's JNI epoll transport: needs its native library, which this build does not bundle. */
    EPOLL {
        @Override
        IoHandlerFactory ioHandlerFactory() {
            if (!Epoll.isAvailable()) {
                throw new IllegalStateException(
                        "Netty's epoll transport is not available here ("
                                + Epoll.unavailabilityCause().getMessage() + ")",
                        Epoll.unavailabilityCause());
            }
            return EpollIoHandler.newFactory();
        }

        @Override
        Class<? extends ServerSocketChannel> serverChannelType() {
            return EpollServerSocketChannel.class;
        }
    };

    /** @return the factory of the event loops' I/O handlers */
    abstract IoHandlerFactory ioHandlerFactory();

    /** @return the type of the listening channel */
    abstract Class<? extends ServerSocketChannel> serverChannelType();
}
