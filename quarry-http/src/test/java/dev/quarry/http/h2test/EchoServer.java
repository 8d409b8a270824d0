package dev.quarry.http.h2test;

import dev.quarry.http.HttpFields;
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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tiny HTTP/2 server made of nothing but the frame layer, to prove that {@link Http2TestClient}, the parser and the
 * generator interoperate: a server-side {@link FrameParser} expecting the preface, a {@link FrameGenerator}, and a
 * thread per connection with blocking I/O. Not an HTTP/2 implementation (no stream states, no flow-control windows).
 *
 * <p>It answers SETTINGS with an ACK and PING with a PING ACK; a request with status 200, {@code x-method} and
 * {@code x-path} fields and a body {@code METHOD PATH} followed by the request body; trailers {@code x-length} when the
 * request has {@code x-trailers: yes}; a malformed request with RST_STREAM PROTOCOL_ERROR; a stream error with
 * RST_STREAM; a connection error with GOAWAY and closing (gracefully: its output ends, and it reads until the client
 * closes, so the GOAWAY is never lost to a reset). Errors it sent are kept in {@link #errors()}.
 */
public final class EchoServer implements AutoCloseable {
    private final ServerSocketChannel server;
    private final SocketAddress address;
    private final Path socketFile;
    private final Thread acceptor;
    private final ConcurrentLinkedQueue<Http2Exception> errors = new ConcurrentLinkedQueue<>();
    private final AtomicInteger connections = new AtomicInteger();

    private EchoServer(ServerSocketChannel server, Path socketFile) throws IOException {
        this.server = server;
        this.socketFile = socketFile;
        this.address = server.getLocalAddress();
        this.acceptor = new Thread(this::accept, "h2test-echo-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return a server on an ephemeral loopback TCP port */
    public static EchoServer tcp() {
        try {
            ServerSocketChannel server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new EchoServer(server, null);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    /** @return a server on a Unix-domain socket in {@code directory} */
    public static EchoServer unix(Path directory) {
        try {
            Path file = directory.resolve("h2echo-" + System.nanoTime() + ".sock");
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(file));
            return new EchoServer(server, file);
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    /** @return where it listens */
    public SocketAddress address() {
        return address;
    }

    /** @return the errors it answered with RST_STREAM or GOAWAY */
    public ConcurrentLinkedQueue<Http2Exception> errors() {
        return errors;
    }

    /** @return the connections accepted so far */
    public int connections() {
        return connections.get();
    }

    private void accept() {
        while (server.isOpen()) {
            try {
                SocketChannel channel = server.accept();
                connections.incrementAndGet();
                Thread thread = new Thread(() -> serve(channel), "h2test-echo-connection");
                thread.setDaemon(true);
                thread.start();
            } catch (IOException x) {
                return; // closed
            }
        }
    }

    private void serve(SocketChannel channel) {
        try (channel) {
            Connection connection = new Connection(channel);
            if (connection.run()) {
                closeGracefully(channel);
            }
        } catch (IOException x) {
            // The client went away: nothing to answer.
        }
    }

    /**
     * Closes after a GOAWAY the way a server must for the GOAWAY to arrive: closing a socket whose input still holds
     * unread octets (frames the client sent after ours were parsed, an automatic ACK) makes the kernel send a reset,
     * which may reach the client before the GOAWAY was read. So: end the output (the client reads the GOAWAY, then the
     * end of input), then read and discard until the client closes too.
     */
    private static void closeGracefully(SocketChannel channel) throws IOException {
        channel.shutdownOutput();
        ByteBuffer discard = ByteBuffer.allocate(8192);
        while (channel.read(discard) >= 0) {
            discard.clear();
        }
    }

    @Override
    public void close() {
        try {
            server.close();
            if (socketFile != null) {
                Files.deleteIfExists(socketFile);
            }
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
    }

    /** One connection's frame loop. */
    private final class Connection implements FrameListener {
        private final SocketChannel channel;
        private final FrameGenerator generator = new FrameGenerator(new HpackEncoder());
        private final FrameParser parser;
        private final ByteBuffer out = ByteBuffer.allocate(1 << 20);
        private final Map<Integer, RequestHead> heads = new HashMap<>();
        private final Map<Integer, ByteArrayOutputStream> bodies = new HashMap<>();
        private int lastStreamId;
        private boolean done;

        Connection(SocketChannel channel) {
            this.channel = channel;
            this.parser =
                    new FrameParser(FrameParser.Side.SERVER, this, new HpackDecoder(), FrameParser.Limits.DEFAULT);
            parser.expectPreface();
        }

        /** @return true if the connection ended with a GOAWAY (ours or the client's), false at the end of input */
        boolean run() throws IOException {
            generator.settings(out, new Http2Settings().set(Http2Settings.MAX_CONCURRENT_STREAMS, 100));
            flush();
            ByteBuffer in = ByteBuffer.allocate(FrameParser.Limits.DEFAULT.maxFrameSize() + 9);
            while (!done && channel.read(in) >= 0) {
                in.flip();
                while (!done && parser.parseFrame(in)) {
                    flush();
                }
                flush();
                in.compact();
            }
            return done;
        }

        private void flush() throws IOException {
            out.flip();
            while (out.hasRemaining()) {
                channel.write(out);
            }
            out.clear();
        }

        @Override
        public void onData(int streamId, ByteBuffer data, boolean endStream, int flowControlledLength) {
            ByteArrayOutputStream body = bodies.get(streamId);
            if (body != null) {
                byte[] bytes = new byte[data.remaining()];
                data.get(bytes);
                body.writeBytes(bytes);
            }
            if (flowControlledLength > 0) {
                generator.windowUpdate(out, 0, flowControlledLength);
            }
            if (endStream && heads.containsKey(streamId)) {
                respond(streamId, new HttpFields());
            }
        }

        @Override
        public void onHeaders(int streamId, HeaderBlock block, boolean endStream) {
            lastStreamId = Math.max(lastStreamId, streamId);
            if (heads.containsKey(streamId)) {
                HttpFields trailers = Http2Messages.trailers(streamId, block);
                respond(streamId, trailers);
                return;
            }
            if (block.tooLarge()) {
                generator.responseHeaders(out, streamId, 431, new HttpFields(), true);
                return;
            }
            RequestHead head = Http2Messages.request(streamId, block);
            heads.put(streamId, head);
            bodies.put(streamId, new ByteArrayOutputStream());
            if (endStream) {
                respond(streamId, new HttpFields());
            }
        }

        private void respond(int streamId, HttpFields requestTrailers) {
            RequestHead head = heads.remove(streamId);
            byte[] requestBody = bodies.remove(streamId).toByteArray();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes((head.method() + " " + head.path()).getBytes(StandardCharsets.UTF_8));
            if (requestBody.length > 0) {
                body.writeBytes(" ".getBytes(StandardCharsets.UTF_8));
                body.writeBytes(requestBody);
            }
            byte[] content = body.toByteArray();
            boolean trailers =
                    head.fields().get("x-trailers").filter("yes"::equals).isPresent();
            HttpFields fields = new HttpFields()
                    .add("x-method", head.method())
                    .add("x-path", head.path())
                    .add("x-request-trailers", Integer.toString(requestTrailers.size()))
                    .add("content-length", Integer.toString(content.length));
            generator.responseHeaders(out, streamId, 200, fields, false);
            int at = 0;
            do {
                int length = Math.min(generator.maxFrameSize(), content.length - at);
                boolean last = at + length == content.length;
                generator.data(out, streamId, ByteBuffer.wrap(content, at, length), last && !trailers);
                at += length;
            } while (at < content.length);
            if (trailers) {
                generator.trailers(out, streamId, new HttpFields().add("x-length", Integer.toString(content.length)));
            }
        }

        @Override
        public void onRstStream(int streamId, ErrorCode error) {
            heads.remove(streamId);
            bodies.remove(streamId);
        }

        @Override
        public void onSettings(Http2Settings settings) {
            settings.get(Http2Settings.MAX_FRAME_SIZE).ifPresent(size -> generator.setMaxFrameSize((int) size));
            generator.settingsAck(out);
        }

        @Override
        public void onSettingsAck() {}

        @Override
        public void onPing(long payload, boolean ack) {
            if (!ack) {
                generator.ping(out, payload, true);
            }
        }

        @Override
        public void onGoAway(int lastStreamId, ErrorCode error, ByteBuffer debugData) {
            done = true;
        }

        @Override
        public void onWindowUpdate(int streamId, int increment) {}

        @Override
        public void onConnectionError(Http2Exception error) {
            errors.add(error);
            generator.goAway(out, lastStreamId, error.error(), error.getMessage());
            done = true;
        }

        @Override
        public void onStreamError(Http2Exception error) {
            errors.add(error);
            lastStreamId = Math.max(lastStreamId, error.streamId());
            heads.remove(error.streamId());
            bodies.remove(error.streamId());
            generator.rstStream(out, error.streamId(), error.error());
        }
    }
}
