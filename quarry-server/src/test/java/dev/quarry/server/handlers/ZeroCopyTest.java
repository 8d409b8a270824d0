package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.ResponseWrapper;
import dev.quarry.server.test.ServerTestBase;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Files go from the page cache to the socket without a copy when the response has a Content-Length on HTTP/1.1
 * cleartext, and through buffers otherwise; the server's statistics count the zero-copy transfers. A file the cache
 * keeps open is mapped and written from its mapping instead (see OpenFilesTest), so these tests keep none open.
 */
class ZeroCopyTest extends StaticFilesTestSupport {
    private static final int MIB = 1024 * 1024;

    /** Starts a handler that opens each file for its request: the way to zero-copy for a file up to 64 MiB. */
    @Override
    StaticFiles start() throws IOException {
        return start(StaticFiles.builder(root).maxOpenFiles(0));
    }

    private Path randomFile(String name, long size) throws Exception {
        Path file = root.resolve(name);
        Random random = new Random(size);
        byte[] chunk = new byte[MIB];
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long written = 0; written < size; ) {
                random.nextBytes(chunk);
                int n = (int) Math.min(chunk.length, size - written);
                out.write(ByteBuffer.wrap(chunk, 0, n));
                written += n;
            }
        }
        return file;
    }

    private static byte[] digest(Path file) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        ByteBuffer buffer = ByteBuffer.allocate(MIB);
        try (FileChannel in = FileChannel.open(file)) {
            while (in.read(buffer.clear()) >= 0) {
                sha.update(buffer.flip());
            }
        }
        return sha.digest();
    }

    /** The head of a response, read byte by byte so that the body stays in the stream. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("EOF in the response head: " + head);
            }
            head.write(b);
            matched = (b == '\r' && matched % 2 == 0) || (b == '\n' && matched % 2 == 1) ? matched + 1 : 0;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    private static long contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                return Long.parseLong(line.substring(15).trim());
            }
        }
        throw new AssertionError("no Content-Length in " + head);
    }

    /** Reads {@code count} bytes in pieces of at most {@code piece} bytes and digests them. */
    private static byte[] readDigest(InputStream in, long count, int piece) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] buffer = new byte[piece];
        for (long done = 0; done < count; ) {
            int n = in.read(buffer, 0, (int) Math.min(piece, count - done));
            if (n < 0) {
                throw new EOFException("EOF after " + done + " of " + count + " bytes");
            }
            sha.update(buffer, 0, n);
            done += n;
        }
        return sha.digest();
    }

    /**
     * The client can read a transfer's last bytes before the server's thread, back from the call that queued them,
     * counts the transfer: the count is awaited, not read once.
     */
    private void awaitFileTransfers(long expected) {
        ServerTestBase.await(
                expected + " completed zero-copy transfers",
                () -> server.statistics().fileTransfers() >= expected,
                () -> "completed: " + server.statistics().fileTransfers());
        assertEquals(expected, server.statistics().fileTransfers());
    }

    @Test
    void aHundredMegabyteFileIsSentZeroCopyIntact() throws Exception {
        long size = 100L * MIB + 7;
        Path file = randomFile("big.bin", size);
        start();
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.getOutputStream()
                    .write("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            String head = readHead(in);
            assertTrue(head.startsWith("HTTP/1.1 200 "), head);
            assertEquals(size, contentLength(head));
            assertArrayEquals(digest(file), readDigest(in, size, 256 * 1024), "SHA-256 of the body");
        }
        awaitFileTransfers(1);
        assertEquals(size, server.statistics().fileTransferBytes());
    }

    @Test
    void aSlowReaderGetsTheWholeFileThroughManyPartialTransfers() throws Exception {
        long size = 24L * MIB;
        Path file = randomFile("slow.bin", size);
        start();
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(16 * 1024);
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
            socket.getOutputStream()
                    .write("GET /slow.bin HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            String head = readHead(in);
            assertEquals(size, contentLength(head));
            // The file is far larger than what the socket buffers hold: the transfer cannot have completed yet.
            assertEquals(0, server.statistics().fileTransfers(), "still in progress");
            assertArrayEquals(digest(file), readDigest(in, size, 4096), "SHA-256 of the body read slowly");
        }
        awaitFileTransfers(1);
    }

    @Test
    void theConnectionServesMoreRequestsAfterAZeroCopyResponse() throws Exception {
        randomFile("one.bin", 3L * MIB);
        write("small.txt", "small");
        start();
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            OutputStream out = socket.getOutputStream();
            // Pipelined: the small cached response is written after the transfer, in order.
            out.write(("GET /one.bin HTTP/1.1\r\nHost: x\r\n\r\n" + "GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n"
                            + "GET /one.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] expected = digest(root.resolve("one.bin"));
            String first = readHead(in);
            assertArrayEquals(expected, readDigest(in, contentLength(first), 65536));
            String second = readHead(in);
            assertEquals(5, contentLength(second));
            assertEquals("small", new String(in.readNBytes(5), StandardCharsets.US_ASCII));
            String third = readHead(in);
            assertArrayEquals(expected, readDigest(in, contentLength(third), 65536));
            assertEquals(-1, in.read(), "closed after the last response");
        }
        awaitFileTransfers(2);
    }

    @Test
    void anHttp10RequestIsSentZeroCopyToo() throws Exception {
        Path file = randomFile("old.bin", 2L * MIB);
        start();
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.getOutputStream().write("GET /old.bin HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            String head = readHead(in);
            assertTrue(head.startsWith("HTTP/1.1 200 "), head);
            assertArrayEquals(digest(file), readDigest(in, contentLength(head), 65536));
            assertEquals(-1, in.read(), "HTTP/1.0 without keep-alive: closed after the response");
        }
        awaitFileTransfers(1);
    }

    @Test
    void aUnixDomainSocketGetsZeroCopyToo() throws Exception {
        Path file = randomFile("unix.bin", 5L * MIB);
        Path socketPath = tempDir.resolve("quarry.sock");
        files = StaticFiles.builder(root).maxOpenFiles(0).build();
        server = dev.quarry.server.Server.builder()
                .unix(socketPath)
                .buffers(pool)
                .handler(files)
                .build()
                .start();
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socketPath))) {
            channel.write(ByteBuffer.wrap("GET /unix.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII)));
            InputStream in = Channels.newInputStream(channel);
            String head = readHead(in);
            assertArrayEquals(digest(file), readDigest(in, contentLength(head), 65536));
        }
        awaitFileTransfers(1);
    }

    @Test
    void aClientThatLeavesDuringATransferAbortsTheExchangeAndLeaksNothing() throws Exception {
        randomFile("leave.bin", 32L * MIB);
        start();
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(16 * 1024);
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
            socket.getOutputStream()
                    .write("GET /leave.bin HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            readHead(in);
            in.readNBytes(100_000);
            socket.setSoLinger(true, 0); // reset: the pending transfer fails at once
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (server.statistics().aborted() == 0) {
            assertTrue(System.nanoTime() < deadline, "the exchange was never aborted");
            Thread.sleep(5); // polling interval of a condition wait
        }
        assertEquals(0, server.statistics().fileTransfers(), "the transfer did not complete");
        // The leak-tracking pool checks after the test that the connection released its buffers.
    }

    @Test
    void headOfALargeFileTransfersNothing() throws Exception {
        randomFile("big.bin", 2L * MIB);
        start();
        Reply reply = head("/big.bin");
        assertEquals(200, reply.status());
        assertEquals(Long.toString(2L * MIB), reply.header("Content-Length"));
        assertEquals(0, reply.body().length);
        assertEquals(0, server.statistics().fileTransfers());
    }

    @Test
    void withoutContentLengthTheFileIsCopiedThroughChunks() throws Exception {
        Path file = randomFile("chunked.bin", 200_000);
        // Not the last write and no Content-Length: the response is chunked, which zero-copy cannot frame.
        // Blocking (the default): it opens a file.
        AsyncHandler handler = (request, response, callback) -> {
            FileChannel channel = FileChannel.open(file);
            response.write(
                    channel,
                    0,
                    200_000,
                    false,
                    Callback.from(
                            () -> response.write(true, ByteBuffer.allocate(0), closing(channel, callback)),
                            x -> closing(channel, callback).failed(x)));
        };
        startServer(handler, b -> b);
        Reply reply = get("/chunked.bin");
        assertEquals(200, reply.status());
        assertEquals("chunked", reply.header("Transfer-Encoding"));
        assertEquals(0, server.statistics().fileTransfers(), "copied, not transferred");
        // Reply keeps the chunk framing: check the size of the de-chunked body instead.
        assertEquals(200_000, dechunk(reply.body()).length);
        assertArrayEquals(java.nio.file.Files.readAllBytes(file), dechunk(reply.body()));
    }

    @Test
    void aWrapperThatOverridesTheFileWriteIsUsedInsteadOfZeroCopy() throws Exception {
        randomFile("wrapped.bin", 100_000);
        StaticFiles handler = StaticFiles.of(root);
        AtomicInteger fileWrites = new AtomicInteger();
        AsyncHandler wrapping = AsyncHandler.nonBlocking((request, response, callback) -> handler.handle(
                request,
                new ResponseWrapper(response) {
                    @Override
                    public void write(FileChannel file, long position, long count, boolean last, Callback cb) {
                        fileWrites.incrementAndGet();
                        // Copy through write(ByteBuffer), as a transforming wrapper would.
                        try {
                            ByteBuffer bytes = ByteBuffer.allocate((int) count);
                            while (bytes.hasRemaining() && file.read(bytes, position + bytes.position()) >= 0) {
                                // read it all
                            }
                            write(last, bytes.flip(), cb);
                        } catch (IOException x) {
                            cb.failed(x);
                        }
                    }
                },
                callback));
        startServer(wrapping, b -> b);
        Reply reply = get("/wrapped.bin").assertFramed();
        assertEquals(200, reply.status());
        assertEquals(1, fileWrites.get());
        assertEquals(0, server.statistics().fileTransfers());
    }

    private static Callback closing(FileChannel channel, Callback callback) {
        return Callback.from(
                () -> {
                    close(channel);
                    callback.succeeded();
                },
                x -> {
                    close(channel);
                    callback.failed(x);
                });
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException x) {
            throw new java.io.UncheckedIOException(x);
        }
    }

    private static byte[] dechunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (true) {
            int lineEnd = indexOfCrlf(body, i);
            int size = Integer.parseInt(new String(body, i, lineEnd - i, StandardCharsets.US_ASCII).trim(), 16);
            i = lineEnd + 2;
            if (size == 0) {
                return out.toByteArray();
            }
            out.write(body, i, size);
            i += size + 2;
        }
    }

    private static int indexOfCrlf(byte[] bytes, int from) {
        for (int i = from; i + 1 < bytes.length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
                return i;
            }
        }
        throw new AssertionError("no CRLF after " + from);
    }
}
