package dev.quarry.client;

import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.FrameListener;
import dev.quarry.http.h2.FrameParser;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Exception;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackLimits;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A raw HTTP/2 (h2c prior knowledge) server whose answers a script writes frame by frame: for resets, GOAWAY and
 * other things a real server does only under stress. Each connection runs on its own virtual thread, with blocking
 * socket I/O (never a selector thread).
 */
final class FakeH2Server implements AutoCloseable {
    /** What to do with each request. */
    interface Script {
        void onRequest(int connection, int streamId, HeaderBlock head, Frames out) throws IOException;
    }

    /** Writes frames to one connection. */
    static final class Frames {
        private final OutputStream out;
        private final FrameGenerator generator = new FrameGenerator(new HpackEncoder());

        Frames(OutputStream out) {
            this.out = out;
        }

        void settings(Http2Settings settings) throws IOException {
            write(buffer -> generator.settings(buffer, settings));
        }

        void settingsAck() throws IOException {
            write(generator::settingsAck);
        }

        void headers(int streamId, int status, boolean endStream) throws IOException {
            write(buffer -> generator.responseHeaders(buffer, streamId, status, new HttpFields(), endStream));
        }

        void trailers(int streamId, HttpFields trailers) throws IOException {
            write(buffer -> generator.trailers(buffer, streamId, trailers));
        }

        void data(int streamId, String text, boolean endStream) throws IOException {
            ByteBuffer payload = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            write(buffer -> generator.data(buffer, streamId, payload, endStream));
        }

        void reset(int streamId, ErrorCode error) throws IOException {
            write(buffer -> generator.rstStream(buffer, streamId, error));
        }

        void goAway(int lastStreamId, ErrorCode error) throws IOException {
            write(buffer -> generator.goAway(buffer, lastStreamId, error, "test"));
        }

        void windowUpdate(int streamId, int increment) throws IOException {
            write(buffer -> generator.windowUpdate(buffer, streamId, increment));
        }

        void ping(long payload) throws IOException {
            write(buffer -> generator.ping(buffer, payload, true));
        }

        private void write(java.util.function.Consumer<ByteBuffer> frame) throws IOException {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            frame.accept(buffer);
            out.write(buffer.array(), 0, buffer.position());
            out.flush();
        }
    }

    /** What to do when DATA arrives (after the request's HEADERS went to {@link Script}). */
    interface DataScript {
        void onData(int streamId, boolean endStream, Frames out) throws IOException;
    }

    private final ServerSocket server;
    final AtomicInteger accepted = new AtomicInteger();
    /** Request content received, on every connection. */
    final AtomicLong dataBytes = new AtomicLong();
    /** The RST_STREAM frames received: {@code "streamId ERROR_CODE"}. */
    final Queue<String> resets = new ConcurrentLinkedQueue<>();
    /** The GOAWAY frames received: {@code "lastStreamId ERROR_CODE"}. */
    final Queue<String> goAways = new ConcurrentLinkedQueue<>();

    private volatile DataScript dataScript;

    /** @param script what to do on DATA, set before the first request */
    void onData(DataScript script) {
        this.dataScript = script;
    }

    FakeH2Server(Http2Settings settings, Script script) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    int index = accepted.getAndIncrement();
                    Thread.ofVirtual().start(() -> {
                        try (socket) {
                            serve(
                                    index,
                                    socket.getInputStream(),
                                    new Frames(socket.getOutputStream()),
                                    settings,
                                    script);
                        } catch (IOException ignored) {
                            // the client went away
                        }
                    });
                } catch (IOException x) {
                    return;
                }
            }
        });
    }

    private void serve(int index, InputStream in, Frames frames, Http2Settings settings, Script script)
            throws IOException {
        frames.settings(settings);
        IOException[] failed = new IOException[1];
        FrameParser parser = new FrameParser(
                FrameParser.Side.SERVER,
                new FrameListener() {
                    @Override
                    public void onData(int streamId, ByteBuffer data, boolean endStream, int length) {
                        dataBytes.addAndGet(data.remaining());
                        DataScript listener = dataScript;
                        if (listener != null) {
                            try {
                                listener.onData(streamId, endStream, frames);
                            } catch (IOException x) {
                                failed[0] = x;
                            }
                        }
                    }

                    @Override
                    public void onHeaders(int streamId, HeaderBlock block, boolean endStream) {
                        try {
                            script.onRequest(index, streamId, block, frames);
                        } catch (IOException x) {
                            failed[0] = x;
                        }
                    }

                    @Override
                    public void onRstStream(int streamId, ErrorCode error) {
                        resets.add(streamId + " " + error);
                    }

                    @Override
                    public void onSettings(Http2Settings peer) {
                        try {
                            frames.settingsAck();
                        } catch (IOException x) {
                            failed[0] = x;
                        }
                    }

                    @Override
                    public void onSettingsAck() {}

                    @Override
                    public void onPing(long payload, boolean ack) {}

                    @Override
                    public void onGoAway(int lastStreamId, ErrorCode error, ByteBuffer debugData) {
                        goAways.add(lastStreamId + " " + error);
                    }

                    @Override
                    public void onWindowUpdate(int streamId, int increment) {}

                    @Override
                    public void onConnectionError(Http2Exception error) {
                        failed[0] = new IOException(error);
                    }

                    @Override
                    public void onStreamError(Http2Exception error) {}
                },
                new HpackDecoder(
                        HpackDecoder.DEFAULT_MAX_TABLE_SIZE, HpackLimits.DEFAULT.withMaxHeaderListSize(256 * 1024)),
                new FrameParser.Limits(Http2Settings.DEFAULT_MAX_FRAME_SIZE, 256 * 1024, 64));
        parser.expectPreface();
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024).flip();
        byte[] bytes = new byte[16 * 1024];
        while (true) {
            while (parser.parseFrame(buffer)) {
                if (failed[0] != null) {
                    throw failed[0];
                }
            }
            if (parser.isClosed()) {
                return;
            }
            int n = in.read(bytes);
            if (n < 0) {
                return;
            }
            buffer.compact().put(bytes, 0, n).flip();
        }
    }

    String uri(String path) {
        return "http://127.0.0.1:" + server.getLocalPort() + path;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
