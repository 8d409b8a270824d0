package dev.quarry.server.handlers;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.core.IteratingCallback;
import dev.quarry.server.Response;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes a {@code multipart/byteranges} body (RFC 9110 §14.6, RFC 2046 §5.1): for each range a delimiter, the part's
 * Content-Type and Content-Range, then the bytes; then the closing delimiter. The length is known in advance, so the
 * response has a Content-Length and each file region can go zero-copy.
 *
 * <p>The boundary is 32 random hex digits: it must not occur in the content, and a client cannot choose content to
 * break out of a part without guessing it.
 *
 * <p>Thread-safety: one write at a time, driven by its own completions (an {@link IteratingCallback}).
 */
final class MultipartRanges extends IteratingCallback {
    private final Response response;
    private final List<ByteRanges.ByteRange> ranges;
    private final byte[][] partHeads;
    private final byte[] closing;
    private final byte[] content;
    private final FileChannel file;
    private final Callback callback;
    private int step;

    /**
     * @param response the response, committed by the first write
     * @param ranges the ranges, at least two
     * @param contentType the representation's Content-Type
     * @param size the representation's length
     * @param boundary the boundary
     * @param content the representation's bytes, or null to read {@code file}
     * @param file the file, or null with {@code content}; closed when done
     * @param callback completed when the body was written
     */
    private MultipartRanges(
            Response response,
            List<ByteRanges.ByteRange> ranges,
            String contentType,
            long size,
            String boundary,
            byte[] content,
            FileChannel file,
            Callback callback) {
        this.response = response;
        this.ranges = ranges;
        this.content = content;
        this.file = file;
        this.callback = callback;
        this.partHeads = new byte[ranges.size()][];
        for (int i = 0; i < ranges.size(); i++) {
            // The CRLF before a delimiter belongs to the delimiter (RFC 2046): none before the first one.
            String head = (i == 0 ? "" : "\r\n") + "--" + boundary + "\r\nContent-Type: " + contentType
                    + "\r\nContent-Range: " + ranges.get(i).contentRange(size) + "\r\n\r\n";
            partHeads[i] = head.getBytes(StandardCharsets.US_ASCII);
        }
        this.closing = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** @return a fresh random boundary */
    static String boundary() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return String.format("%016x%016x", random.nextLong(), random.nextLong());
    }

    /** @return the Content-Type of the whole response */
    static String contentType(String boundary) {
        return "multipart/byteranges; boundary=" + boundary;
    }

    /** @return the exact length of the body that {@link #send} writes */
    static long contentLength(List<ByteRanges.ByteRange> ranges, String contentType, long size, String boundary) {
        long length = 0;
        for (int i = 0; i < ranges.size(); i++) {
            length += (i == 0 ? 0 : 2)
                    + 2
                    + boundary.length()
                    + 2
                    + "Content-Type: ".length()
                    + contentType.length()
                    + 2
                    + "Content-Range: ".length()
                    + ranges.get(i).contentRange(size).length()
                    + 4;
            length += ranges.get(i).length();
        }
        return length + 2 + 2 + boundary.length() + 2 + 2;
    }

    /** Writes the body; the status, Content-Type and Content-Length must be set. */
    static void send(
            Response response,
            List<ByteRanges.ByteRange> ranges,
            String contentType,
            long size,
            String boundary,
            byte[] content,
            FileChannel file,
            Callback callback) {
        new MultipartRanges(response, ranges, contentType, size, boundary, content, file, callback).iterate();
    }

    @Override
    protected Action process() {
        int part = step / 2;
        if (part == ranges.size()) {
            if (step % 2 == 1) {
                return Action.SUCCEEDED;
            }
            step++;
            response.write(true, ByteBuffer.wrap(closing), this);
            return Action.SCHEDULED;
        }
        boolean head = step % 2 == 0;
        step++;
        if (head) {
            response.write(false, ByteBuffer.wrap(partHeads[part]), this);
            return Action.SCHEDULED;
        }
        ByteRanges.ByteRange range = ranges.get(part);
        if (content != null) {
            response.write(false, ByteBuffer.wrap(content, (int) range.first(), (int) range.length()), this);
        } else {
            response.write(file, range.first(), range.length(), false, this);
        }
        return Action.SCHEDULED;
    }

    @Override
    protected void onCompleteSuccess() {
        closeFile();
        callback.succeeded();
    }

    @Override
    protected void onCompleteFailure(Throwable cause) {
        closeFile();
        callback.failed(cause);
    }

    private void closeFile() {
        if (file != null) {
            try {
                file.close();
            } catch (IOException x) {
                System.getLogger(MultipartRanges.class.getName())
                        .log(System.Logger.Level.DEBUG, "closing " + file + " failed", x);
            }
        }
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public String toString() {
        return "MultipartRanges{" + ranges.size() + " parts, step " + step + "}";
    }
}
