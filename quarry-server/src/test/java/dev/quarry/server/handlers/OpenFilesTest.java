package dev.quarry.server.handlers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpHeader;
import dev.quarry.server.ResponseWrapper;
import dev.quarry.server.test.ServerTestBase;
import dev.quarry.server.test.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The larger files the cache keeps open (like nginx's {@code open_file_cache}): served without opening them again,
 * byte-exact whatever the request (ranges, HEAD, conditional), closed when their entry changes, bounded.
 */
class OpenFilesTest extends StaticFilesTestSupport {
    private static final Duration LONG = Duration.ofHours(1);

    private static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void aLargerFileIsKeptOpenAndServedWithoutOpeningItAgain() throws Exception {
        byte[] content = random(50_000, 1);
        write("big.bin", content);
        start(StaticFiles.builder(root).revalidateAfter(LONG).maxCachedFileSize(1024));
        assertArrayEquals(content, get("/big.bin").assertFramed().body());
        assertEquals(1, files.openFiles());
        // The name is gone, but the cache trusts its entry for the interval and sends the file it keeps open, as nginx
        // does: opening it for this request would have failed (404).
        Files.move(root.resolve("big.bin"), tempDir.resolve("elsewhere.bin"));
        Reply reply = get("/big.bin").assertFramed();
        assertEquals(200, reply.status());
        assertArrayEquals(content, reply.body());
    }

    @Test
    void aFileKeptOpenIsClosedWhenItsEntryChanges() throws Exception {
        byte[] first = random(50_000, 1);
        byte[] second = random(50_000, 2);
        write("big.bin", first);
        start(StaticFiles.builder(root).revalidateAfter(Duration.ZERO).maxCachedFileSize(1024));
        assertArrayEquals(first, get("/big.bin").body());
        Path big = root.resolve("big.bin").toRealPath();
        assertEquals(1, openDescriptorsOfDeleted(big) + openDescriptorsOf(big));
        // A deployment renames the new version into place: the old file is deleted, its descriptor must go too.
        Path replacement = tempDir.resolve("new.bin");
        Files.write(replacement, second);
        Files.setLastModifiedTime(replacement, FileTime.from(MODIFIED.plusSeconds(1)));
        Files.move(replacement, root.resolve("big.bin"), StandardCopyOption.ATOMIC_MOVE);
        assertArrayEquals(second, get("/big.bin").assertFramed().body());
        assertEquals(0, openDescriptorsOfDeleted(big), "the replaced file is closed");
        assertEquals(1, files.openFiles(), "the new version is kept open instead");
    }

    @Test
    void atMostMaxOpenFilesAreKeptOpen() throws Exception {
        byte[] a = random(40_000, 1);
        byte[] b = random(40_000, 2);
        write("a.bin", a);
        write("b.bin", b);
        start(StaticFiles.builder(root)
                .revalidateAfter(LONG)
                .maxCachedFileSize(1024)
                .maxOpenFiles(1));
        for (int i = 0; i < 2; i++) {
            assertArrayEquals(a, get("/a.bin").assertFramed().body());
            assertArrayEquals(b, get("/b.bin").assertFramed().body());
        }
        assertEquals(1, files.openFiles());
        assertEquals(1, openDescriptorsOf(root.resolve("a.bin")) + openDescriptorsOf(root.resolve("b.bin")));
    }

    @Test
    void rangesHeadAndConditionalRequestsOfAFileKeptOpenAreExact() throws Exception {
        byte[] content = random(50_000, 3);
        write("big.bin", content);
        start(StaticFiles.builder(root).revalidateAfter(LONG).maxCachedFileSize(1024));
        String etag = get("/big.bin").header("ETag");
        assertEquals(1, files.openFiles());

        Reply head = head("/big.bin");
        assertEquals(200, head.status());
        assertEquals("50000", head.header("Content-Length"));
        assertEquals(0, head.body().length);

        Reply range = get("/big.bin", "Range: bytes=1000-1999").assertFramed();
        assertEquals(206, range.status());
        assertEquals("bytes 1000-1999/50000", range.header("Content-Range"));
        assertArrayEquals(Arrays.copyOfRange(content, 1000, 2000), range.body());

        Reply suffix = get("/big.bin", "Range: bytes=-10").assertFramed();
        assertArrayEquals(Arrays.copyOfRange(content, 49_990, 50_000), suffix.body());

        Reply parts = get("/big.bin", "Range: bytes=0-9,40000-40009").assertFramed();
        assertEquals(206, parts.status());
        assertTrue(parts.header("Content-Type").startsWith("multipart/byteranges"));
        assertTrue(contains(parts.body(), Arrays.copyOfRange(content, 0, 10)));
        assertTrue(contains(parts.body(), Arrays.copyOfRange(content, 40_000, 40_010)));

        Reply notModified = get("/big.bin", "If-None-Match: " + etag);
        assertEquals(304, notModified.status());
        assertEquals(0, notModified.body().length);

        assertArrayEquals(content, get("/big.bin").assertFramed().body());
        assertEquals(1, openDescriptorsOf(root.resolve("big.bin")), "one descriptor, kept, for all of them");
    }

    @Test
    void slowAndFastReadersOfOneFileKeptOpenEachGetAllOfIt() throws Exception {
        byte[] content = random(4 * 1024 * 1024, 4);
        write("large.bin", content);
        start(StaticFiles.builder(root).revalidateAfter(LONG).maxCachedFileSize(1024));
        assertArrayEquals(content, get("/large.bin").assertFramed().body());
        // A small window: the server's send stalls on a full socket, its transfer waits to be writable.
        try (Socket slow = slowReader("/large.bin")) {
            InputStream in = slow.getInputStream();
            byte[] start = in.readNBytes(1024);
            // Meanwhile another client reads the same file, from the same descriptor, at its own position.
            assertArrayEquals(content, get("/large.bin").assertFramed().body());
            byte[] rest = in.readAllBytes();
            byte[] all = new byte[start.length + rest.length];
            System.arraycopy(start, 0, all, 0, start.length);
            System.arraycopy(rest, 0, all, start.length, rest.length);
            Reply reply = Reply.parse(all).assertFramed();
            assertArrayEquals(content, reply.body());
        }
        assertEquals(1, files.openFiles());
    }

    /** Serves {@link #files} through a wrapper whose file write throws before passing it on: it never completes. */
    private void startServerRefusingFileWrites() throws Exception {
        startServer(
                (request, response, callback) -> files.handle(
                        request,
                        new ResponseWrapper(response) {
                            @Override
                            public void write(
                                    FileChannel file, long position, long count, boolean last, Callback callback) {
                                throw new IllegalStateException("refused by the test");
                            }
                        },
                        callback),
                b -> b);
    }

    @Test
    void aFileSendThatThrowsGivesTheFileBack() throws Exception {
        byte[] content = random(50_000, 5);
        write("big.bin", content);
        files = StaticFiles.builder(root)
                .revalidateAfter(LONG)
                .maxCachedFileSize(1024)
                .build();
        startServerRefusingFileWrites();
        for (int i = 0; i < 3; i++) {
            assertEquals(500, get("/big.bin").status());
        }
        OpenFile open = files.openFileOf("/big.bin");
        assertEquals(1, open.references(), "only the cache's reference is left: " + open);
        assertEquals(1, openDescriptorsOf(root.resolve("big.bin")));
    }

    @Test
    void aFileOpenedForOneSendThatThrowsIsClosed() throws Exception {
        byte[] content = random(50_000, 6);
        write("big.bin", content);
        files = StaticFiles.builder(root)
                .revalidateAfter(LONG)
                .maxCachedFileSize(1024)
                .maxOpenFiles(0)
                .build();
        startServerRefusingFileWrites();
        assertEquals(500, get("/big.bin").status());
        assertEquals(0, openDescriptorsOf(root.resolve("big.bin")));
    }

    @Test
    void aReaderInterruptedOnTheSharedFileDoesNotBreakItForTheNextRequests() throws Exception {
        byte[] content = random(50_000, 7);
        write("big.bin", content);
        start(StaticFiles.builder(root).revalidateAfter(LONG).maxCachedFileSize(1024));
        assertArrayEquals(content, get("/big.bin").assertFramed().body());
        // What a virtual thread reading the file for a response sees when it is interrupted (a handler timeout, a
        // stop): FileChannel is interruptible, and closes the channel, for every response that shares it.
        OpenFile open = files.openFileOf("/big.bin");
        assertTrue(open.acquire());
        Thread reader = Thread.ofVirtual().unstarted(() -> {
            Thread.currentThread().interrupt();
            try {
                open.channel().read(ByteBuffer.allocate(1024), 0);
            } catch (IOException expected) {
                // ClosedByInterruptException
            }
        });
        reader.start();
        reader.join();
        open.release();
        for (int i = 0; i < 3; i++) {
            Reply reply = get("/big.bin").assertFramed();
            assertEquals(200, reply.status());
            assertArrayEquals(content, reply.body());
        }
        assertEquals(1, files.openFiles());
        assertTrue(files.openFileOf("/big.bin").channel().isOpen(), "a fresh descriptor is kept open instead");
    }

    @Test
    void aFileKeptOpenThatShrinksInPlaceCutsItsSendShortAndTheServerGoesOn() throws Exception {
        byte[] content = random(100_000, 8);
        Path big = write("big.bin", content);
        write("other.bin", random(50_000, 9));
        start(StaticFiles.builder(root).revalidateAfter(LONG).maxCachedFileSize(1024));
        assertArrayEquals(content, get("/big.bin").assertFramed().body());
        // Rewritten in place, not renamed into place: the entry is trusted until it is checked again, and the pages
        // past the new end are gone from the mapping (a write from them fails, a read in the JVM faults).
        try (FileChannel truncating = FileChannel.open(big, StandardOpenOption.WRITE)) {
            truncating.truncate(10);
        }
        assertTrue(bytesReceived("/big.bin") < content.length, "cut short");
        OpenFile open = files.openFileOf("/big.bin");
        ServerTestBase.await("the failed send gives its reference back", () -> open.references() == 1, open::toString);
        // The server goes on: other files, and the same one once its entry is checked again.
        assertEquals(200, get("/other.bin").assertFramed().status());
        assertEquals(200, get("/other.bin").assertFramed().status());
    }

    @Test
    void aLargeFileKeptOpenIsWrittenFromItsMappingCutShortIfItShrinksAndOpenedAgainByTheNextRequest() throws Exception {
        int size = 16 * 1024 * 1024; // more than the socket buffers take: the send waits for the reader, then goes on
        byte[] content = random(size, 12);
        Path big = write("big.bin", content);
        write("other.bin", random(50_000, 11));
        start(StaticFiles.builder(root).revalidateAfter(LONG).maxCachedFileSize(1024));
        assertArrayEquals(content, get("/big.bin").assertFramed().body());
        assertEquals(0, server.statistics().fileTransfers(), "written from the mapping, not with sendfile");
        OpenFile open = files.openFileOf("/big.bin");
        long abortedBefore = server.statistics().aborted();
        truncateWhileSent(big, size);
        ServerTestBase.await("the failed send gives its reference back", () -> open.references() <= 1, open::toString);
        assertEquals(200, get("/other.bin").assertFramed().status(), "the server goes on");
        ServerTestBase.await(
                "the cut-short response counts as aborted",
                () -> server.statistics().aborted() == abortedBefore + 1,
                () -> "aborted: " + server.statistics().aborted());
        // The failed send told the handler that the file shrank: the next request opens it again, finds its new size
        // and sends what is left, rather than failing on the stale mapping until the entry is next checked (an hour).
        Reply again = get("/big.bin").assertFramed();
        assertEquals(200, again.status());
        assertArrayEquals(Arrays.copyOf(content, 10), again.body());
        ServerTestBase.await("the shrunk file is no longer kept open", () -> open.references() == 0, open::toString);
        assertArrayEquals(
                Arrays.copyOf(content, 10), get("/big.bin").assertFramed().body());
    }

    /**
     * Truncates {@code big} to 10 bytes in place while a slow reader is in the middle of downloading it (a send waiting
     * for the reader), and checks that the download was cut short.
     */
    private void truncateWhileSent(Path big, int size) throws IOException {
        try (Socket client = slowReader("/big.bin")) {
            InputStream in = client.getInputStream();
            long received = in.readNBytes(4096).length; // the send is under way, waiting for this reader
            // Rewritten in place: the pages past the new end are gone from the mapping the send continues from.
            try (FileChannel truncating = FileChannel.open(big, StandardOpenOption.WRITE)) {
                truncating.truncate(10);
            }
            received += drain(in);
            assertTrue(received < size, "cut short: " + received);
        }
    }

    @Test
    void aClientThatResetsMidDownloadLeavesTheFileKeptOpen() throws Exception {
        int size = 16 * 1024 * 1024;
        byte[] content = random(size, 13);
        write("big.bin", content);
        start(StaticFiles.builder(root).revalidateAfter(LONG).maxCachedFileSize(1024));
        assertArrayEquals(content, get("/big.bin").assertFramed().body());
        OpenFile open = files.openFileOf("/big.bin");
        try (Socket client = slowReader("/big.bin")) {
            client.getInputStream().readNBytes(4096); // the send is under way, waiting for this reader
            client.setSoLinger(true, 0); // close with a reset: the server's next write fails
        }
        ServerTestBase.await("the failed send gives its reference back", () -> open.references() == 1, open::toString);
        // A failed send alone says nothing about the file: it stays open, and the next request is sent from it.
        assertArrayEquals(content, get("/big.bin").assertFramed().body());
        assertSame(open, files.openFileOf("/big.bin"), "still the same file kept open");
        assertEquals(1, open.references(), open.toString());
    }

    @Test
    void aWriteFromAMappedFileTruncatedWhileItWaitsForTheSocketFailsItsCallback() throws Exception {
        int size = 16 * 1024 * 1024; // more than the socket buffers take: the write waits, then continues
        Path file = root.resolve("sparse.bin");
        try (java.io.RandomAccessFile sparse = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            sparse.setLength(size);
        }
        MappedByteBuffer mapped;
        try (FileChannel channel = FileChannel.open(file)) {
            mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
        }
        CompletableFuture<Void> writeReturned = new CompletableFuture<>();
        CompletableFuture<String> outcome = new CompletableFuture<>();
        startServer(
                (request, response, callback) -> {
                    response.headers().put(HttpHeader.CONTENT_LENGTH, Integer.toString(size));
                    response.write(
                            true,
                            mapped,
                            Callback.from(
                                    InvocationType.NON_BLOCKING,
                                    () -> {
                                        outcome.complete("succeeded");
                                        callback.succeeded();
                                    },
                                    failure -> {
                                        outcome.complete("failed");
                                        callback.failed(failure);
                                    }));
                    writeReturned.complete(null);
                },
                b -> b);
        try (Socket client = slowReader("/sparse.bin")) {
            writeReturned.get(10, TimeUnit.SECONDS);
            // Only the continuation, on the selector as the socket drains, reads what is left: from here on it faults.
            try (FileChannel truncating = FileChannel.open(file, StandardOpenOption.WRITE)) {
                truncating.truncate(0);
            }
            long received = drain(client.getInputStream());
            assertTrue(received < size, "cut short: " + received);
        }
        assertEquals("failed", outcome.get(10, TimeUnit.SECONDS));
    }

    /** @return how many bytes a GET received, head included, until the server closed (or reset) the connection */
    private long bytesReceived(String target) throws IOException {
        try (Socket socket = overTls()
                ? TestCertificates.ec().clientContext().getSocketFactory().createSocket("127.0.0.1", server.port())
                : new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream()
                    .write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            return drain(socket.getInputStream());
        }
    }

    /**
     * @return a connection (over TLS when this class runs so) that sent {@code GET target} with {@code Connection:
     *     close} and reads through a 4 KiB receive buffer: the server's send of a large body stalls on it
     */
    private Socket slowReader(String target) throws IOException {
        Socket socket = overTls()
                ? TestCertificates.ec().clientContext().getSocketFactory().createSocket()
                : new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
        socket.setSoTimeout(20_000);
        socket.getOutputStream()
                .write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
        return socket;
    }

    /** @return how many bytes {@code in} gave until the server closed the connection, or reset it (those count) */
    private static long drain(InputStream in) throws IOException {
        byte[] buffer = new byte[65536];
        long total = 0;
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                total += n;
            }
        } catch (java.net.SocketException | javax.net.ssl.SSLException reset) {
            // closed abortively: what arrived before counts
        }
        return total;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** @return how many of this process's descriptors are open on {@code file} (Linux: /proc/self/fd) */
    private static long openDescriptorsOf(Path file) throws IOException {
        Path real = file.toRealPath();
        return descriptorTargets()
                .filter(target -> target.equals(real.toString()))
                .count();
    }

    /**
     * @return how many descriptors are open on a deleted file that had this real path (Linux marks them " (deleted)");
     *     the path, not the name: the servers of earlier tests in this JVM may still hold files of their own
     */
    private static long openDescriptorsOfDeleted(Path real) throws IOException {
        return descriptorTargets()
                .filter(target -> target.equals(real + " (deleted)"))
                .count();
    }

    private static Stream<String> descriptorTargets() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds
                    .map(fd -> {
                        try {
                            return Files.readSymbolicLink(fd).toString();
                        } catch (IOException x) {
                            return ""; // closed since it was listed
                        }
                    })
                    .toList()
                    .stream();
        }
    }
}
