package dev.quarry.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * One page of a browser driven over the Chrome DevTools Protocol, on the JDK's own WebSocket client: commands are
 * sent with increasing ids and their answers matched by id; events are all recorded, in order, so that a test can
 * both wait for one and look back at what happened (e.g. every network request).
 *
 * <p>Thread-safety: commands may be sent from any thread; the WebSocket listener is the only writer of the event
 * list and completes the pending commands. Each command waits at most {@link #COMMAND_TIMEOUT}.
 */
final class DevToolsPage implements AutoCloseable {
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(20);

    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, CompletableFuture<Map<String, Object>>> pending = new ConcurrentHashMap<>();
    private final List<Map<String, Object>> events = new ArrayList<>();
    private final ReentrantLock eventLock = new ReentrantLock();
    private final Condition eventArrived = eventLock.newCondition();
    private final WebSocket socket;

    private DevToolsPage(HttpClient http, URI endpoint) throws IOException {
        try {
            socket = http.newWebSocketBuilder()
                    .connectTimeout(COMMAND_TIMEOUT)
                    .buildAsync(endpoint, new Listener())
                    .get(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException x) {
            throw new IOException("cannot open the DevTools WebSocket " + endpoint, x);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while opening " + endpoint, x);
        }
    }

    /**
     * @param http the client whose WebSocket to use
     * @param endpoint the page target's {@code webSocketDebuggerUrl}
     * @return the connected page
     * @throws IOException if the WebSocket cannot be opened
     */
    static DevToolsPage connect(HttpClient http, URI endpoint) throws IOException {
        return new DevToolsPage(http, endpoint);
    }

    /**
     * Sends a command and waits for its result.
     *
     * @param method e.g. {@code Page.navigate}
     * @param params its parameters
     * @return the {@code result} object
     * @throws IllegalStateException naming the method if the browser answers with an error or not in time
     */
    Map<String, Object> send(String method, Map<String, Object> params) {
        long id = ids.incrementAndGet();
        CompletableFuture<Map<String, Object>> answer = new CompletableFuture<>();
        pending.put(id, answer);
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("id", id);
        message.put("method", method);
        message.put("params", params);
        try {
            socket.sendText(CdpJson.write(message), true).get(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<String, Object> reply = answer.get(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (reply.get("error") != null) {
                throw new IllegalStateException(method + " failed: " + reply.get("error"));
            }
            return map(reply.get("result"));
        } catch (ExecutionException | TimeoutException x) {
            throw new IllegalStateException(method + " got no answer within " + COMMAND_TIMEOUT, x);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + method, x);
        } finally {
            pending.remove(id);
        }
    }

    /**
     * Evaluates a JavaScript expression in the page and returns its value, as JSON gives it.
     *
     * @param expression e.g. {@code document.title}
     * @return the value: a string, number, boolean, list, map or null
     * @throws IllegalStateException with the page's exception text if the expression throws
     */
    Object evaluate(String expression) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("expression", expression);
        params.put("returnByValue", true);
        Map<String, Object> result = send("Runtime.evaluate", params);
        if (result.get("exceptionDetails") != null) {
            throw new IllegalStateException("'" + expression + "' threw: " + result.get("exceptionDetails"));
        }
        return map(result.get("result")).get("value");
    }

    /**
     * Evaluates {@code expression} until its value satisfies {@code until}, retrying after each event the page sends
     * (at least every 50 ms) and treating an evaluation that fails (e.g. while the page navigates) as not yet.
     *
     * @return the satisfying value
     * @throws AssertionError describing the last value (or failure) if the deadline passes first
     */
    Object await(String expression, Predicate<Object> until, long deadlineNanos) {
        Object last = null;
        while (true) {
            int seen = eventCount();
            try {
                last = evaluate(expression);
                if (until.test(last)) {
                    return last;
                }
            } catch (IllegalStateException x) {
                last = x.getMessage();
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(
                        "'" + expression + "' did not reach the expected value in time; last: " + last);
            }
            awaitEventAfter(seen, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
        }
    }

    /** @return how many events have arrived so far */
    int eventCount() {
        eventLock.lock();
        try {
            return events.size();
        } finally {
            eventLock.unlock();
        }
    }

    /** @return the parameters of every event named {@code method} received so far, in order */
    List<Map<String, Object>> events(String method) {
        eventLock.lock();
        try {
            List<Map<String, Object>> found = new ArrayList<>();
            for (Map<String, Object> event : events) {
                if (method.equals(event.get("method"))) {
                    found.add(map(event.get("params")));
                }
            }
            return found;
        } finally {
            eventLock.unlock();
        }
    }

    private void awaitEventAfter(int seen, long nanos) {
        eventLock.lock();
        try {
            long left = nanos;
            while (events.size() == seen && left > 0) {
                left = eventArrived.awaitNanos(left);
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a DevTools event", x);
        } finally {
            eventLock.unlock();
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private void received(String text) {
        Map<String, Object> message = map(CdpJson.read(text));
        if (message.get("id") instanceof Long id) {
            CompletableFuture<Map<String, Object>> answer = pending.get(id);
            if (answer != null) {
                answer.complete(message);
            }
            return;
        }
        eventLock.lock();
        try {
            events.add(message);
            eventArrived.signalAll();
        } finally {
            eventLock.unlock();
        }
    }

    private void failAll(Throwable cause) {
        pending.values().forEach(answer -> answer.completeExceptionally(cause));
    }

    @Override
    public void close() {
        socket.abort();
        failAll(new IOException("DevTools connection closed"));
    }

    @Override
    public String toString() {
        return "DevToolsPage{pending=" + pending.size() + ", events=" + eventCount() + "}";
    }

    /** Reassembles messages split over several frames; the WebSocket calls it for one frame at a time. */
    private final class Listener implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                received(text);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            failAll(new IOException("DevTools closed the connection: " + statusCode + " " + reason));
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            failAll(error);
        }
    }
}
