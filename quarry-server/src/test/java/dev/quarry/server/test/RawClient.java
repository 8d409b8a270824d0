package dev.quarry.server.test;

import dev.quarry.http.h2test.TlsClientChannel;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A client connection that sends raw bytes and reads responses off the wire, for the tests that must control every
 * byte (smuggling, pipelining, limits) or that must see exactly how the server ends a connection.
 *
 * <p>It works over any {@link Transport} (a non-blocking {@link SocketChannel} with its own {@link Selector}, so that
 * every read has a timeout, TCP and Unix-domain alike; over TLS, a {@link TlsClientChannel} on it, and the bytes sent
 * and read are the decrypted ones). Reads are buffered: bytes the server sent after the response
 * that was asked for (pipelined responses) stay for the next read.
 *
 * <p>Thread-safety: one thread may send while another reads; otherwise one thread.
 */
public final class RawClient implements AutoCloseable {
    /** How long any single read or write may wait: generous, for a loaded 2-core machine. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

    private final SocketChannel channel;
    // What bytes are read from and written to: the socket, or TLS over it.
    private final ByteChannel io;
    private final TlsClientChannel tls;
    private final Selector selector;
    private final SelectionKey key;
    // Writes wait on their own selector, so that one thread may send while another reads (a full-duplex client).
    private final Selector writeSelector;
    private final SelectionKey writeKey;
    private ByteBuffer in = ByteBuffer.allocate(16 * 1024).flip();
    private Duration timeout = DEFAULT_TIMEOUT;
    private boolean eof;
    private long received;

    private RawClient(SocketChannel channel, TlsClientChannel tls) throws IOException {
        this.channel = channel;
        this.tls = tls;
        this.io = tls == null ? channel : tls;
        channel.configureBlocking(false);
        this.selector = Selector.open();
        this.key = channel.register(selector, 0);
        this.writeSelector = Selector.open();
        this.writeKey = channel.register(writeSelector, 0);
    }

    /**
     * Connects.
     *
     * @param transport the transport
     * @param address where
     * @return the connected client
     * @throws IOException if the connection is refused
     */
    public static RawClient connect(Transport transport, SocketAddress address) throws IOException {
        SocketChannel channel = transport.open();
        try {
            channel.connect(address);
            TlsClientChannel tls = null;
            if (transport.isTls()) {
                InetSocketAddress inet = (InetSocketAddress) address;
                tls = TlsClientChannel.handshake(
                        channel,
                        transport.clientTls(),
                        inet.getHostString(),
                        inet.getPort(),
                        List.of("http/1.1"),
                        DEFAULT_TIMEOUT);
            }
            return new RawClient(channel, tls);
        } catch (IOException | RuntimeException x) {
            channel.close();
            throw x;
        }
    }

    /**
     * @param timeout how long reads and writes may wait from now on
     * @return this
     */
    public RawClient timeout(Duration timeout) {
        this.timeout = timeout;
        return this;
    }

    /**
     * Shrinks the kernel's receive buffer (TCP only), so that a client that stops reading pushes back sooner.
     *
     * @param bytes the size asked for
     * @return this
     * @throws IOException if the option cannot be set
     */
    public RawClient receiveBuffer(int bytes) throws IOException {
        channel.setOption(StandardSocketOptions.SO_RCVBUF, bytes);
        return this;
    }

    /** @return the local address of this connection (its port identifies it on the server) */
    public SocketAddress localAddress() throws IOException {
        return channel.getLocalAddress();
    }

    /**
     * Sends text as ISO-8859-1 bytes (so that any byte value can be written as a char).
     *
     * @param text the bytes to send
     * @return this
     * @throws IOException if the server closed or reset the connection
     */
    public RawClient send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /**
     * Sends bytes, waiting while the socket cannot take them.
     *
     * @param bytes the bytes
     * @return this
     * @throws IOException if the server closed or reset the connection, or the write timed out
     */
    public RawClient send(byte[] bytes) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(bytes);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (out.hasRemaining()) {
            if (io.write(out) == 0) {
                await(
                        writeSelector,
                        writeKey,
                        SelectionKey.OP_WRITE,
                        deadline,
                        "writing " + out.remaining() + " more bytes");
            } else {
                deadline = System.nanoTime() + timeout.toNanos(); // progress: a slow reader is not a timeout
            }
        }
        // TLS: the last record may still wait for room in the socket.
        while (tls != null && !tls.flushPending()) {
            await(writeSelector, writeKey, SelectionKey.OP_WRITE, deadline, "writing the last TLS record");
        }
        return this;
    }

    /** Half-closes: the server reads end of stream (over TLS, close_notify then FIN). */
    public void shutdownOutput() throws IOException {
        if (tls != null) {
            tls.shutdownOutput();
        } else {
            channel.shutdownOutput();
        }
    }

    /**
     * Reads one complete response to a request that is not HEAD.
     *
     * @return the response
     * @throws IOException if the connection ends before the response is complete, or a read times out
     */
    public RawResponse readResponse() throws IOException {
        return readResponse(false);
    }

    /**
     * Reads one complete response (or an interim 1xx one).
     *
     * @param head whether the request was HEAD (the response then has no body whatever its fields say)
     * @return the response
     * @throws IOException if the connection ends before the response is complete, or a read times out
     */
    public RawResponse readResponse(boolean head) throws IOException {
        String statusLine = readLine("the status line");
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("not a status line: '" + statusLine + "'");
        }
        int status = Integer.parseInt(parts[1]);
        String reason = parts.length > 2 ? parts[2] : "";
        List<RawResponse.Field> headers = readFields("header");
        RawResponse response = new RawResponse(parts[0], status, reason, headers, new byte[0], false, List.of());
        boolean noBody = head || (status >= 100 && status < 200) || status == 204 || status == 304;
        if (noBody) {
            return response;
        }
        if (response.header("Transfer-Encoding")
                .map(v -> v.toLowerCase(Locale.ROOT).contains("chunked"))
                .orElse(false)) {
            return readChunked(response);
        }
        byte[] body;
        if (response.header("Content-Length").isPresent()) {
            long length = Long.parseLong(response.header("Content-Length").get().trim());
            body = readExactly(length, response);
        } else {
            body = readToEnd(); // close-delimited
        }
        return new RawResponse(parts[0], status, reason, headers, body, false, List.of());
    }

    /**
     * Reads the final response, skipping interim 1xx responses.
     *
     * @return the final response
     * @throws IOException as {@link #readResponse()}
     */
    public RawResponse readFinalResponse() throws IOException {
        while (true) {
            RawResponse response = readResponse();
            if (response.status() >= 200 || response.status() == 101) {
                return response;
            }
        }
    }

    private RawResponse readChunked(RawResponse head) throws IOException {
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        while (true) {
            String sizeLine = readLine("a chunk size (" + body.size() + " body bytes so far)");
            int semicolon = sizeLine.indexOf(';');
            String hex = (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim();
            long size = Long.parseLong(hex, 16);
            if (size == 0) {
                break;
            }
            body.write(readExactly(size, head));
            String end = readLine("the CRLF after chunk data");
            if (!end.isEmpty()) {
                throw new IOException("chunk data not followed by CRLF but by '" + end + "'");
            }
        }
        List<RawResponse.Field> trailers = readFields("trailer");
        return new RawResponse(
                head.version(), head.status(), head.reason(), head.headers(), body.toByteArray(), true, trailers);
    }

    private List<RawResponse.Field> readFields(String section) throws IOException {
        List<RawResponse.Field> fields = new ArrayList<>();
        while (true) {
            String line = readLine("a " + section + " line");
            if (line.isEmpty()) {
                return fields;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed " + section + " line: '" + line + "'");
            }
            fields.add(new RawResponse.Field(
                    line.substring(0, colon), line.substring(colon + 1).trim()));
        }
    }

    private String readLine(String what) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (int i = in.position(); i < in.limit(); i++) {
                if (in.get(i) == '\n') {
                    int end = i > in.position() && in.get(i - 1) == '\r' ? i - 1 : i;
                    byte[] line = new byte[end - in.position()];
                    in.get(line);
                    in.position(i + 1);
                    return new String(line, StandardCharsets.ISO_8859_1);
                }
            }
            if (fill(deadline, "reading " + what) < 0) {
                throw new EOFException("connection closed by the server while reading " + what + " (" + in.remaining()
                        + " bytes of it received)");
            }
        }
    }

    /**
     * Reads exactly {@code length} bytes, whatever they are: after a 101, the bytes of the protocol switched to.
     *
     * @throws IOException if the connection ends first, or a read times out
     */
    public byte[] readBytes(int length) throws IOException {
        return readExactly(length, "raw bytes");
    }

    private byte[] readExactly(long length, RawResponse head) throws IOException {
        return readExactly(length, "body bytes of a " + head.status() + " response");
    }

    private byte[] readExactly(long length, String what) throws IOException {
        if (length > Integer.MAX_VALUE - 16) {
            throw new IOException("body too large for a test client: " + length);
        }
        byte[] bytes = new byte[(int) length];
        int n = 0;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (n < length) {
            if (!in.hasRemaining()) {
                int read = fill(deadline, "reading " + (length - n) + " more " + what);
                if (read < 0) {
                    throw new EOFException("connection closed by the server after " + n + " of " + length + " " + what);
                }
                // A fill made progress: a slow but steady body must not time out as a whole.
                deadline = System.nanoTime() + timeout.toNanos();
                continue;
            }
            int chunk = Math.min(in.remaining(), bytes.length - n);
            in.get(bytes, n, chunk);
            n += chunk;
        }
        return bytes;
    }

    private byte[] readToEnd() throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (in.hasRemaining()) {
                out.write(in.array(), in.arrayOffset() + in.position(), in.remaining());
                in.position(in.limit());
            }
            if (fill(deadline, "reading a close-delimited body (" + out.size() + " bytes so far)") < 0) {
                return out.toByteArray();
            }
        }
    }

    /**
     * Waits until the server ends the connection, failing if it sends anything else first.
     *
     * @return "EOF" for an orderly close (FIN), "RST" for a reset
     * @throws IOException if bytes arrive instead, or the wait times out
     */
    public String awaitClosed() throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                if (in.hasRemaining()) {
                    throw new IOException("expected the server to close the connection, but it sent " + in.remaining()
                            + " more bytes: " + preview());
                }
                if (fill(deadline, "waiting for the server to close the connection") < 0) {
                    return "EOF";
                }
            }
        } catch (SocketException x) {
            // Connection reset: the server closed with bytes of ours still unread.
            return "RST";
        }
    }

    /**
     * Checks, without waiting, whether the server already closed the connection (a read returns end of stream or a
     * reset) with nothing else unread.
     *
     * @return whether the connection is closed by the server
     * @throws IOException if a read fails otherwise
     */
    public boolean isClosedByServer() throws IOException {
        if (eof) {
            return true;
        }
        if (in.hasRemaining()) {
            return false;
        }
        try {
            in.compact();
            int read;
            try {
                read = io.read(in);
            } finally {
                in.flip();
            }
            if (read < 0) {
                eof = true;
            }
            return eof;
        } catch (SocketException x) {
            eof = true;
            return true;
        }
    }

    /** @return the number of bytes read from the server so far */
    public long received() {
        return received;
    }

    /** @return the buffered bytes not consumed yet, as text, truncated */
    public String preview() {
        int n = Math.min(in.remaining(), 300);
        byte[] bytes = new byte[n];
        in.get(in.position(), bytes);
        return "'"
                + new String(bytes, StandardCharsets.ISO_8859_1)
                        .replace("\r", "\\r")
                        .replace("\n", "\\n") + (n < in.remaining() ? "...'" : "'");
    }

    private int fill(long deadline, String what) throws IOException {
        if (eof) {
            return -1;
        }
        if (in.limit() == in.capacity() && in.position() == 0) {
            ByteBuffer bigger = ByteBuffer.allocate(in.capacity() * 2);
            bigger.put(in).flip();
            in = bigger;
        }
        while (true) {
            in.compact();
            int read;
            try {
                read = io.read(in);
            } finally {
                in.flip();
            }
            if (read > 0) {
                received += read;
                return read;
            }
            if (read < 0) {
                eof = true;
                return -1;
            }
            await(selector, key, SelectionKey.OP_READ, deadline, what);
        }
    }

    private void await(Selector selector, SelectionKey key, int op, long deadline, String what) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("timed out after " + timeout + " " + what
                    + (op == SelectionKey.OP_READ ? "; unread: " + preview() : ""));
        }
        key.interestOps(op);
        try {
            selector.select(Math.max(1, left / 1_000_000));
        } finally {
            key.interestOps(0);
            selector.selectedKeys().clear();
        }
    }

    /** Closes with a reset (SO_LINGER 0) where the transport allows it: the server's next read or write fails. */
    public void abort() throws IOException {
        if (channel.supportedOptions().contains(StandardSocketOptions.SO_LINGER)) {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        }
        close();
    }

    @Override
    public void close() throws IOException {
        try {
            selector.close();
            writeSelector.close();
        } finally {
            channel.close();
        }
    }

    @Override
    public String toString() {
        String local;
        try {
            local = String.valueOf(channel.getLocalAddress());
        } catch (IOException x) {
            local = "closed";
        }
        return "RawClient{" + local
                + (tls != null ? ", " + tls.engine().getSession().getProtocol() : "") + ", received=" + received
                + (eof ? ", EOF" : "") + "}";
    }
}
