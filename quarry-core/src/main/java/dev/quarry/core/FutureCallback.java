package dev.quarry.core;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A callback that a blocking caller waits on: the bridge from Quarry's asynchronous core to blocking
 * {@code InputStream}/{@code OutputStream} APIs, which on a virtual thread park cheaply.
 *
 * <p>Completing it never blocks ({@link InvocationType#NON_BLOCKING}): it only wakes the waiter, so an I/O thread may
 * complete it in place. Thread-safe.
 */
public final class FutureCallback extends CompletableFuture<Void> implements Callback {

    @Override
    public void succeeded() {
        complete(null);
    }

    @Override
    public void failed(Throwable failure) {
        completeExceptionally(failure);
    }

    @Override
    public InvocationType invocationType() {
        return InvocationType.NON_BLOCKING;
    }

    /**
     * Waits until the operation completes and rethrows its failure as an {@link IOException}.
     *
     * @throws IOException if the operation failed, or {@link InterruptedIOException} if interrupted
     */
    public void block() throws IOException {
        try {
            get();
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw (IOException) new InterruptedIOException("interrupted while blocked").initCause(x);
        } catch (ExecutionException x) {
            throw toIOException(x.getCause());
        }
    }

    /**
     * Waits at most {@code timeout} for the operation to complete.
     *
     * @param timeout how long to wait
     * @param unit the unit of {@code timeout}
     * @throws IOException if the operation failed or did not complete in time
     */
    public void block(long timeout, TimeUnit unit) throws IOException {
        try {
            get(timeout, unit);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw (IOException) new InterruptedIOException("interrupted while blocked").initCause(x);
        } catch (ExecutionException x) {
            throw toIOException(x.getCause());
        } catch (TimeoutException x) {
            throw new IOException("operation did not complete within " + timeout + " " + unit, x);
        }
    }

    private static IOException toIOException(Throwable cause) {
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof UncheckedIOException unchecked) {
            return unchecked.getCause();
        }
        return new IOException(cause.getMessage() == null ? cause.toString() : cause.getMessage(), cause);
    }
}
