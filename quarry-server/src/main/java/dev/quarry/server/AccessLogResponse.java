package dev.quarry.server;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpException;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpStatus;
import dev.quarry.server.internal.Exchange;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One logged exchange: the response passed down the chain, counting the body bytes written through it, and the
 * callback passed down with it, which learns how the exchange ended. One object for both, so that logging a request
 * allocates it and the entry, nothing else.
 *
 * <p>On completion it captures an {@link AccessLogEntry} and offers it to the log before completing the server's
 * callback (the request may not be read after that): the status sent; for a failure before commit, the status the
 * server will answer (an {@link HttpException}'s, 500 otherwise); for a failure after commit, the status sent and the
 * abort.
 *
 * <p>A write or a completion that comes after the exchange was recycled for another request (a handler completing twice,
 * the second time late) is refused: the write fails, the completion is logged and ignored, rather than end or log the
 * other request.
 *
 * <p>Thread-safety: writes are one at a time and happen before the completion, as for any response; the byte count
 * needs no more than that.
 */
final class AccessLogResponse extends ResponseWrapper implements Callback {
    private static final System.Logger LOG = System.getLogger(AccessLogResponse.class.getName());
    private static final String REQUEST_ID = "X-Request-Id";

    private final AccessLog log;
    private final Request request;
    private final Callback callback;
    private long bytes;

    AccessLogResponse(AccessLog log, Request request, Response response, Callback callback) {
        super(response);
        this.log = log;
        this.request = request;
        this.callback = callback;
    }

    @Override
    public void write(boolean last, ByteBuffer content, Callback callback) {
        if (isOver()) {
            callback.failed(Exchange.responseCompleted());
            return;
        }
        bytes += content.remaining();
        wrapped().write(last, content, callback);
    }

    @Override
    public void write(FileChannel file, long position, long count, boolean last, Callback callback) {
        if (isOver()) {
            callback.failed(Exchange.responseCompleted());
            return;
        }
        bytes += Math.max(0, count);
        // To the wrapped response's own file write, so that zero-copy transfer stays possible.
        wrapped().write(file, position, count, last, callback);
    }

    @Override
    public void succeeded() {
        if (isLate(null)) {
            return;
        }
        log.offer(entry(status(), false));
        callback.succeeded();
    }

    @Override
    public void failed(Throwable failure) {
        if (isLate(failure)) {
            return;
        }
        boolean committed = isCommitted();
        int status = committed
                ? status()
                : failure instanceof HttpException http ? http.status() : HttpStatus.INTERNAL_SERVER_ERROR_500;
        log.offer(entry(status, committed));
        callback.failed(failure);
    }

    /** @return whether the exchange was recycled since: a late completion is logged and ignored */
    private boolean isLate(Throwable failure) {
        if (!isOver()) {
            return false;
        }
        LOG.log(System.Logger.Level.WARNING, "handler completed after its exchange was over; ignored", failure);
        return true;
    }

    @Override
    public InvocationType invocationType() {
        return callback.invocationType();
    }

    private AccessLogEntry entry(int status, boolean aborted) {
        long nanos = System.nanoTime() - request.beginNanos();
        long startMillis = System.currentTimeMillis() - nanos / 1_000_000;
        HttpFields fields = request.headers();
        return new AccessLogEntry(
                request.remoteAddress(),
                startMillis,
                request.method(),
                request.target(),
                request.version(),
                status,
                bytes,
                nanos,
                value(fields, fields.indexOf(HttpHeader.REFERER)),
                value(fields, fields.indexOf(HttpHeader.USER_AGENT)),
                value(headers(), headers().indexOf(REQUEST_ID)),
                aborted);
    }

    private static String value(HttpFields fields, int index) {
        return index < 0 ? null : fields.field(index).value();
    }

    @Override
    public String toString() {
        return "AccessLogResponse[" + wrapped() + "]";
    }
}
