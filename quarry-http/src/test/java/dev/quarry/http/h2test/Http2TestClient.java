package dev.quarry.http.h2test;

import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.h2.ErrorCode;
import dev.quarry.http.h2.FrameGenerator;
import dev.quarry.http.h2.FrameParser;
import dev.quarry.http.h2.HeaderBlock;
import dev.quarry.http.h2.Http2Settings;
import dev.quarry.http.hpack.HeaderField;
import dev.quarry.http.hpack.HpackDecoder;
import dev.quarry.http.hpack.HpackEncoder;
import dev.quarry.http.hpack.HpackLimits;
import dev.quarry.http.hpack.HpackOutput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;

/**
 * A frame-level HTTP/2 client for tests: it sends any frame, including ones a correct client never would, and records
 * every frame the server sends as a {@link FrameEvent}, parsed by a {@linkplain FrameParser.Side#CLIENT client-side}
 * {@link FrameParser}, so that a test can await the server's answer to a protocol error (GOAWAY, RST_STREAM) or a
 * whole response.
 *
 * <p>A blocking {@link SocketChannel} to a TCP or Unix-domain address (or {@link TlsClientChannel TLS} over one, h2 by
 * ALPN); a reader thread parses what arrives and queues
 * the events until the end of input, whatever came before it (a GOAWAY is followed by the server closing, and the
 * frames before the close are still collected). By default the client behaves as a real one would where a test rarely
 * cares: it acknowledges the server's SETTINGS (and applies its MAX_FRAME_SIZE and HEADER_TABLE_SIZE) and returns
 * flow-control credit for the DATA it receives; both can be turned off.
 *
 * <p>Ordering: the reader thread starts at once, so the server's SETTINGS may arrive before this client sent its own
 * preface. Its ACK is held back until the client sent its first SETTINGS frame with {@link #sendSettings} (RFC 9113
 * 3.4: the client preface is the magic octets followed by SETTINGS), so that an automatic ACK never overtakes the
 * preface, whatever the timing.
 *
 * <p>A server that closes the connection: a send that fails (broken pipe, reset) is recorded, not thrown, and later
 * sends are dropped, so that a test flooding a server that answers with GOAWAY and closes can go on to await the
 * GOAWAY. {@link #writeFailure()} tells whether that happened, and an await that times out says so.
 *
 * <p>Awaiting: each {@code await...} takes the first not yet taken event that matches, leaving the others queued for
 * later awaits; {@link #events()} keeps every event received. A timeout fails with an {@link AssertionError} that
 * lists what did arrive.
 *
 * <p>Flow control: {@link #sendDataFlowControlled} sends DATA only within the windows the server opened (its
 * SETTINGS_INITIAL_WINDOW_SIZE and WINDOW_UPDATEs), waiting for credit; {@link #sendData} ignores the windows.
 *
 * <p>Thread-safety: sends are serialised by a lock (the reader thread also sends ACKs and window updates); awaits may
 * be called from any thread.
 */
public final class Http2TestClient implements AutoCloseable {

    /** The timeout of the awaits that take none. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /** What a complete response was. */
    public record Response(int status, HttpFields headers, byte[] body, HttpFields trailers) {
        /** @return the body decoded as UTF-8 */
        public String bodyAsString() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "Response{" + status + ", " + headers + ", " + body.length + " octets, trailers=" + trailers + "}";
        }
    }

    private static final AtomicLong PINGS = new AtomicLong(0x5155_4152_5259_0000L);

    private final ByteChannel channel;
    private final HpackEncoder encoder = new HpackEncoder();
    private final FrameGenerator generator = new FrameGenerator(encoder);
    private final FrameParser parser;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final EventQueue events = new EventQueue(this::diagnostics);
    private final AtomicLong streamIds = new AtomicLong(1);
    private final Thread reader;
    private final String authority;

    private volatile boolean autoAckSettings = true;
    private volatile boolean autoWindowUpdate = true;
    private volatile boolean readerDone;
    private volatile IOException writeFailure;
    // Guarded by writeLock: ACKs wait until this client's own SETTINGS went out.
    private boolean settingsSent;
    private int deferredAcks;

    private Http2TestClient(ByteChannel channel, String authority, int maxFrameSize) {
        this.channel = channel;
        this.authority = authority;
        HpackDecoder decoder =
                new HpackDecoder(HpackDecoder.DEFAULT_MAX_TABLE_SIZE, new HpackLimits(1 << 20, 10_000, 1 << 20));
        this.parser = new FrameParser(
                FrameParser.Side.CLIENT,
                new FrameRecorder(this::received),
                decoder,
                new FrameParser.Limits(maxFrameSize, 1 << 20, 10_000));
        this.reader = new Thread(() -> readLoop(maxFrameSize), "h2test-client-reader");
        reader.setDaemon(true);
    }

    /**
     * Connects, sends the preface and an empty SETTINGS frame.
     *
     * @param address a TCP or Unix-domain address
     * @return the connected client
     */
    public static Http2TestClient connect(SocketAddress address) {
        return connect(address, new Http2Settings());
    }

    /**
     * Connects, sends the preface and a SETTINGS frame with {@code settings}.
     *
     * @param address a TCP or Unix-domain address
     * @param settings the client's settings (a MAX_FRAME_SIZE in them sizes the client's read buffer)
     * @return the connected client
     */
    public static Http2TestClient connect(SocketAddress address, Http2Settings settings) {
        Http2TestClient client = open(
                address, (int) settings.get(Http2Settings.MAX_FRAME_SIZE).orElse(Http2Settings.DEFAULT_MAX_FRAME_SIZE));
        client.sendPreface();
        client.sendSettings(settings);
        return client;
    }

    /**
     * Connects without sending anything, for tests of the preface itself.
     *
     * @param address a TCP or Unix-domain address
     * @param maxFrameSize the largest frame the client reads
     * @return the connected client
     */
    public static Http2TestClient open(SocketAddress address, int maxFrameSize) {
        return open(address, maxFrameSize, null);
    }

    /**
     * Connects over TLS, offering {@code h2} by ALPN, sends the preface and an empty SETTINGS frame.
     *
     * @param address a TCP address
     * @param tls the client's TLS context (which certificates it trusts)
     * @return the connected client
     */
    public static Http2TestClient connect(SocketAddress address, SSLContext tls) {
        Http2TestClient client = open(address, Http2Settings.DEFAULT_MAX_FRAME_SIZE, tls);
        client.sendPreface();
        client.sendSettings(new Http2Settings());
        return client;
    }

    /**
     * Connects without sending anything, in clear text or over TLS (then offering {@code h2} by ALPN and checking the
     * server chose it).
     *
     * @param address a TCP or Unix-domain address
     * @param maxFrameSize the largest frame the client reads
     * @param tls the client's TLS context, or null for clear text
     * @return the connected client
     */
    public static Http2TestClient open(SocketAddress address, int maxFrameSize, SSLContext tls) {
        String authority = address instanceof java.net.InetSocketAddress inet
                ? inet.getHostString() + ":" + inet.getPort()
                : "localhost";
        SocketChannel socket = null;
        try {
            socket = SocketChannel.open(address);
            ByteChannel channel = socket;
            if (tls != null) {
                java.net.InetSocketAddress inet = (java.net.InetSocketAddress) address;
                TlsClientChannel secure = TlsClientChannel.handshake(
                        socket, tls, inet.getHostString(), inet.getPort(), List.of("h2"), DEFAULT_TIMEOUT);
                if (!secure.applicationProtocol().equals("h2")) {
                    throw new IOException("the server chose '" + secure.applicationProtocol() + "' by ALPN, not h2");
                }
                channel = secure;
            }
            Http2TestClient client = new Http2TestClient(channel, authority, maxFrameSize);
            client.reader.start();
            return client;
        } catch (IOException x) {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException suppressed) {
                    x.addSuppressed(suppressed);
                }
            }
            throw new UncheckedIOException("cannot connect to " + address, x);
        }
    }

    /** @param on whether to acknowledge the server's SETTINGS automatically (default true) */
    public Http2TestClient autoAckSettings(boolean on) {
        autoAckSettings = on;
        return this;
    }

    /** @param on whether to return flow-control credit for received DATA automatically (default true) */
    public Http2TestClient autoWindowUpdate(boolean on) {
        autoWindowUpdate = on;
        return this;
    }

    /** @return the authority sent with {@link #request}: {@code host:port}, or {@code localhost} */
    public String authority() {
        return authority;
    }

    /** @return the client's HPACK encoder (to build raw header blocks in step with the server's decoder) */
    public HpackEncoder encoder() {
        return encoder;
    }

    /** @return a fresh client stream id: 1, 3, 5... */
    public int nextStreamId() {
        return (int) streamIds.getAndAdd(2);
    }

    /** @return why writing failed, if it did (the server closed, or {@link #close()} was called) */
    public Optional<IOException> writeFailure() {
        return Optional.ofNullable(writeFailure);
    }

    // --- sending ------------------------------------------------------------------------------------------------

    /**
     * Sends raw bytes. If writing fails (the server closed the connection) the failure is recorded for
     * {@link #writeFailure()} and this and later sends are dropped: the frames the server sent before closing are
     * still collected.
     */
    public void send(ByteBuffer bytes) {
        writeLock.lock();
        try {
            if (writeFailure != null) {
                return;
            }
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        } catch (IOException x) {
            writeFailure = x;
        } finally {
            writeLock.unlock();
        }
    }

    /** Sends raw bytes. */
    public void send(byte[] bytes) {
        send(ByteBuffer.wrap(bytes));
    }

    /** Sends the client connection preface. */
    public void sendPreface() {
        ByteBuffer out = ByteBuffer.allocate(24);
        FrameGenerator.preface(out);
        send(out.flip());
    }

    /** Sends any frame, as is. */
    public void sendFrame(int type, int flags, int streamId, byte[] payload) {
        ByteBuffer out = ByteBuffer.allocate(9 + payload.length);
        FrameGenerator.frame(out, type, flags, streamId, ByteBuffer.wrap(payload));
        send(out.flip());
    }

    /**
     * Sends a SETTINGS frame. The first one completes the client preface: the ACKs of server SETTINGS that arrived
     * before it follow it.
     */
    public void sendSettings(Http2Settings settings) {
        writeLock.lock();
        try {
            write(9 + 6 * 8, out -> generator.settings(out, settings));
            if (!settingsSent) {
                settingsSent = true;
                for (; deferredAcks > 0; deferredAcks--) {
                    if (autoAckSettings) {
                        sendSettingsAck();
                    }
                }
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** Sends a SETTINGS frame with ACK. */
    public void sendSettingsAck() {
        write(9, generator::settingsAck);
    }

    /** Sends a PING frame. */
    public void sendPing(long payload, boolean ack) {
        write(17, out -> generator.ping(out, payload, ack));
    }

    /** Sends a GOAWAY frame. */
    public void sendGoAway(int lastStreamId, ErrorCode error, String debug) {
        write(9 + 8 + 256, out -> generator.goAway(out, lastStreamId, error, debug));
    }

    /** Sends a WINDOW_UPDATE frame. */
    public void sendWindowUpdate(int streamId, int increment) {
        write(13, out -> generator.windowUpdate(out, streamId, increment));
    }

    /** Sends a RST_STREAM frame. */
    public void sendRstStream(int streamId, ErrorCode error) {
        write(13, out -> generator.rstStream(out, streamId, error));
    }

    /** Sends a PRIORITY frame. */
    public void sendPriority(int streamId, int dependency, boolean exclusive, int weight) {
        write(14, out -> generator.priority(out, streamId, dependency, exclusive, weight));
    }

    /**
     * Sends DATA frames of at most the server's max frame size, ignoring flow control; END_STREAM on the last if
     * {@code endStream}.
     */
    public void sendData(int streamId, byte[] data, boolean endStream) {
        writeLock.lock();
        try {
            int max = generator.maxFrameSize();
            int at = 0;
            do {
                int length = Math.min(max, data.length - at);
                boolean last = at + length == data.length;
                ByteBuffer out = ByteBuffer.allocate(9 + length);
                generator.data(out, streamId, ByteBuffer.wrap(data, at, length), endStream && last);
                send(out.flip());
                at += length;
            } while (at < data.length);
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Sends DATA within the server's flow-control windows: as much as the windows allow, then, for the rest, waits for
     * the WINDOW_UPDATEs that open them. Frames of at most the server's max frame size; END_STREAM on the last if
     * {@code endStream}. Other threads may send meanwhile (the write lock is not held while waiting).
     *
     * @throws AssertionError if the windows stay closed for {@code timeout}, or the connection ends first
     */
    public void sendDataFlowControlled(int streamId, byte[] data, boolean endStream, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int at = 0;
        if (data.length == 0) {
            sendData(streamId, data, endStream);
            return;
        }
        while (at < data.length) {
            int max = Math.min(generator.maxFrameSize(), data.length - at);
            int length = events.takeCredit(streamId, max, deadline, () -> readerDone || writeFailure != null);
            boolean last = at + length == data.length;
            sendData(streamId, java.util.Arrays.copyOfRange(data, at, at + length), endStream && last);
            at += length;
        }
    }

    /** @return the server's send window for {@code streamId} as this client counts it (what it may still send) */
    public long streamSendWindow(int streamId) {
        return events.streamWindow(streamId);
    }

    /** @return the connection's send window as this client counts it */
    public long connectionSendWindow() {
        return events.connectionWindow();
    }

    /** Sends a request head through the generator (lowercased, connection-specific fields dropped). */
    public void sendHeaders(
            int streamId,
            String method,
            String scheme,
            String authority,
            String path,
            HttpFields fields,
            boolean endStream) {
        int room = 4096 + generator.maxHeadersLength(fields);
        write(room, out -> generator.requestHeaders(out, streamId, method, scheme, authority, path, fields, endStream));
    }

    /** Sends trailers through the generator. */
    public void sendTrailers(int streamId, HttpFields trailers) {
        write(generator.maxHeadersLength(trailers), out -> generator.trailers(out, streamId, trailers));
    }

    /**
     * HPACK-encodes {@code fields} exactly as given (no validation, any order, any case) with the client's encoder.
     *
     * @return the header block
     */
    public byte[] encodeHeaderBlock(List<HeaderField> fields) {
        writeLock.lock();
        try {
            HpackOutput out = new HpackOutput();
            encoder.encode(fields, out);
            return out.toByteArray();
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Sends a raw header block: {@code fields} HPACK-encoded as given, in a HEADERS frame and CONTINUATION frames of at
     * most {@code fragmentSize} octets each.
     */
    public void sendHeaderBlock(int streamId, List<HeaderField> fields, boolean endStream, int fragmentSize) {
        writeLock.lock();
        try {
            byte[] block = encodeHeaderBlock(fields);
            int at = 0;
            boolean first = true;
            do {
                int length = Math.min(fragmentSize, block.length - at);
                boolean last = at + length == block.length;
                int flags = (last ? 0x4 : 0) | (first && endStream ? 0x1 : 0);
                sendFrame(first ? 0x1 : 0x9, flags, streamId, java.util.Arrays.copyOfRange(block, at, at + length));
                at += length;
                first = false;
            } while (at < block.length);
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Sends a request on a new stream: HEADERS ({@code http}, this client's authority) and the body, if any.
     *
     * @return the stream id
     */
    public int request(String method, String path, HttpFields fields, byte[] body) {
        int streamId = nextStreamId();
        boolean hasBody = body != null && body.length > 0;
        writeLock.lock();
        try {
            sendHeaders(streamId, method, "http", authority, path, fields, !hasBody);
            if (hasBody) {
                sendData(streamId, body, true);
            }
        } finally {
            writeLock.unlock();
        }
        return streamId;
    }

    /** Sends a GET without body. @return the stream id */
    public int get(String path) {
        return request("GET", path, new HttpFields(), null);
    }

    private interface Writer {
        void write(ByteBuffer out);
    }

    private void write(int room, Writer writer) {
        ByteBuffer out = ByteBuffer.allocate(room);
        writeLock.lock();
        try {
            writer.write(out);
            send(out.flip());
        } finally {
            writeLock.unlock();
        }
    }

    // --- receiving ----------------------------------------------------------------------------------------------

    private void readLoop(int maxFrameSize) {
        ByteBuffer buffer = ByteBuffer.allocate(maxFrameSize + 9);
        String how = "end of input";
        try {
            while (true) {
                if (channel.read(buffer) < 0) {
                    break;
                }
                buffer.flip();
                while (parser.parseFrame(buffer)) {
                    // one frame (or error) per call
                }
                if (parser.isClosed()) {
                    buffer.clear();
                } else {
                    buffer.compact();
                }
            }
        } catch (IOException x) {
            how = channel.isOpen() ? "read failed: " + x : "closed by the client";
        } catch (RuntimeException | Error x) {
            how = "reader failed: " + x;
            readerDone = true;
            received(new FrameEvent.Closed(how));
            throw x;
        }
        readerDone = true;
        received(new FrameEvent.Closed(how));
    }

    private void received(FrameEvent event) {
        switch (event) {
            case FrameEvent.Settings settings -> applySettings(settings.settings());
            case FrameEvent.Data data -> {
                if (autoWindowUpdate && data.flowControlledLength() > 0) {
                    sendWindowUpdate(0, data.flowControlledLength());
                    if (!data.endStream()) {
                        sendWindowUpdate(data.streamId(), data.flowControlledLength());
                    }
                }
            }
            default -> {}
        }
        events.add(event);
    }

    private void applySettings(Http2Settings settings) {
        writeLock.lock();
        try {
            settings.get(Http2Settings.MAX_FRAME_SIZE).ifPresent(size -> generator.setMaxFrameSize((int) size));
            settings.get(Http2Settings.HEADER_TABLE_SIZE).ifPresent(size -> encoder.setMaxTableSize((int) size));
            if (!settingsSent) {
                deferredAcks++; // an ACK now would overtake our preface
            } else if (autoAckSettings) {
                sendSettingsAck();
            }
        } finally {
            writeLock.unlock();
        }
    }

    private String diagnostics() {
        IOException failure = writeFailure;
        return failure == null ? "" : "; writing failed: " + failure;
    }

    /** @return every event received so far, in order */
    public List<FrameEvent> events() {
        return events.history();
    }

    /**
     * Takes the first event not taken yet that is a {@code type} and matches {@code condition}.
     *
     * @throws AssertionError on timeout, listing the events received
     */
    public <T extends FrameEvent> T await(Class<T> type, Predicate<? super T> condition, Duration timeout) {
        return events.await(type, condition, timeout);
    }

    /** Takes the next event not taken yet, whatever it is. */
    public FrameEvent next(Duration timeout) {
        return await(FrameEvent.class, event -> true, timeout);
    }

    /** Awaits the server's SETTINGS frame (not an ACK). */
    public Http2Settings awaitSettings(Duration timeout) {
        return await(FrameEvent.Settings.class, e -> true, timeout).settings();
    }

    /** Awaits the ACK of a SETTINGS frame this client sent. */
    public void awaitSettingsAck(Duration timeout) {
        await(FrameEvent.SettingsAck.class, e -> true, timeout);
    }

    /** Awaits a GOAWAY frame. */
    public FrameEvent.GoAway awaitGoAway(Duration timeout) {
        return await(FrameEvent.GoAway.class, e -> true, timeout);
    }

    /** Awaits a RST_STREAM frame on {@code streamId}. */
    public FrameEvent.RstStream awaitRstStream(int streamId, Duration timeout) {
        return await(FrameEvent.RstStream.class, e -> e.streamId() == streamId, timeout);
    }

    /** Awaits the end of the connection. */
    public FrameEvent.Closed awaitClosed(Duration timeout) {
        return await(FrameEvent.Closed.class, e -> true, timeout);
    }

    /**
     * Sends a PING and awaits its ACK.
     *
     * @return the round trip time
     */
    public Duration ping(Duration timeout) {
        long payload = PINGS.incrementAndGet();
        long start = System.nanoTime();
        sendPing(payload, false);
        await(FrameEvent.Ping.class, e -> e.ack() && e.payload() == payload, timeout);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** {@link #awaitResponse(int, Duration)} with {@link #DEFAULT_TIMEOUT}. */
    public Response awaitResponse(int streamId) {
        return awaitResponse(streamId, DEFAULT_TIMEOUT);
    }

    /**
     * Collects the response on {@code streamId}: the final head (1xx heads are skipped), DATA and trailers up to
     * END_STREAM.
     *
     * @throws AssertionError if the stream is reset, the connection ends or the time runs out first
     */
    public Response awaitResponse(int streamId, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        HeaderBlock head = null;
        HttpFields trailers = new HttpFields();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            // WINDOW_UPDATE and PRIORITY on the stream are not part of the response (the server sends window
            // updates while it reads the request body): they stay queued for other awaits.
            FrameEvent event = await(
                    FrameEvent.class,
                    e -> e.streamId() == streamId
                                    && !(e instanceof FrameEvent.WindowUpdate)
                                    && !(e instanceof FrameEvent.Priority)
                            || e instanceof FrameEvent.GoAway
                            || e instanceof FrameEvent.Closed
                            || e instanceof FrameEvent.ConnectionError,
                    left);
            switch (event) {
                case FrameEvent.Headers headers -> {
                    if (head == null) {
                        String status = headers.block().status();
                        if (status != null && status.length() == 3 && status.charAt(0) == '1') {
                            continue;
                        }
                        head = headers.block();
                    } else {
                        for (HttpField field : headers.block().fields()) {
                            trailers.add(field);
                        }
                    }
                    if (headers.endStream()) {
                        return response(streamId, head, body, trailers);
                    }
                }
                case FrameEvent.Data data -> {
                    body.writeBytes(data.data());
                    if (data.endStream()) {
                        return response(streamId, head, body, trailers);
                    }
                }
                default ->
                    throw new AssertionError(
                            "stream " + streamId + " did not complete: " + event + "; received: " + events());
            }
        }
    }

    private static Response response(int streamId, HeaderBlock head, ByteArrayOutputStream body, HttpFields trailers) {
        if (head == null) {
            throw new AssertionError("stream " + streamId + " ended without a response head");
        }
        if (head.malformed().isPresent() || head.status() == null) {
            throw new AssertionError("malformed response head on stream " + streamId + ": " + head);
        }
        return new Response(Integer.parseInt(head.status()), head.fields(), body.toByteArray(), trailers);
    }

    /** Closes the connection and waits for the reader thread to end. */
    @Override
    public void close() {
        try {
            channel.close();
            reader.join(TimeUnit.SECONDS.toMillis(10));
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } finally {
            events.signal();
        }
    }

    @Override
    public String toString() {
        return "Http2TestClient{" + authority + ", " + parser + ", " + events.size() + " events" + diagnostics() + "}";
    }
}
