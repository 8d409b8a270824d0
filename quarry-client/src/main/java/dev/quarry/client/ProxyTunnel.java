package dev.quarry.client;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.io.AbstractConnection;
import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * The first connection of an endpoint to a proxy, for an {@code https} origin: it sends {@code CONNECT host:port}
 * (RFC 9110 §9.3.6), reads the proxy's answer, and on a 2xx hands the endpoint, now a tunnel to the origin, to the
 * connection that {@code next} creates (TLS to the origin). Any other answer closes the endpoint with a
 * {@link ProxyConnectException}, which the destination reports as the connect's failure ({@link #failure()}).
 *
 * <p>Thread-safety: {@link #onOpen()} runs once on a selector thread, {@link #onFillable()} then runs once per fill
 * interest, one at a time; neither blocks. The head buffer is a heap buffer of its own (one per tunnel, short-lived),
 * not pooled, so that no pooled buffer is left behind whichever way the tunnel ends.
 */
final class ProxyTunnel extends AbstractConnection {
    private final Origin origin;
    private final HttpProxy proxy;
    private final Function<EndPoint, Connection> next;
    private final ByteBuffer head;
    private volatile IOException failure;

    ProxyTunnel(
            EndPoint endPoint, Origin origin, HttpProxy proxy, int maxHeadSize, Function<EndPoint, Connection> next) {
        super(endPoint);
        this.origin = origin;
        this.proxy = proxy;
        this.next = next;
        this.head = ByteBuffer.allocate(maxHeadSize);
    }

    @Override
    public String protocol() {
        return "connect";
    }

    @Override
    protected InvocationType readInvocationType() {
        return InvocationType.NON_BLOCKING;
    }

    @Override
    public void onOpen() {
        String authority = origin.host().indexOf(':') >= 0
                ? "[" + origin.host() + "]:" + origin.port()
                : origin.host() + ":" + origin.port();
        StringBuilder request = new StringBuilder(128)
                .append("CONNECT ")
                .append(authority)
                .append(" HTTP/1.1\r\nHost: ")
                .append(authority)
                .append("\r\n");
        String authorization = proxy.authorizationOrNull();
        if (authorization != null) {
            request.append("Proxy-Authorization: ").append(authorization).append("\r\n");
        }
        request.append("\r\n");
        fillInterested();
        endPoint()
                .write(
                        Callback.from(InvocationType.NON_BLOCKING, () -> {}, x -> fail(asIOException(x))),
                        ByteBuffer.wrap(request.toString().getBytes(StandardCharsets.ISO_8859_1)));
    }

    @Override
    protected void onFillable() {
        try {
            int n = endPoint().fill(head);
            int end = endOfHead();
            if (end < 0) {
                if (n < 0) {
                    fail(new EOFException(
                            "proxy " + proxy + " closed the connection before answering CONNECT to " + origin));
                } else if (!head.hasRemaining()) {
                    fail(new BadResponseException("the answer of proxy " + proxy + " to CONNECT is larger than "
                            + head.capacity() + " bytes"));
                } else {
                    fillInterested();
                }
                return;
            }
            String text = new String(head.array(), 0, end, StandardCharsets.ISO_8859_1);
            int lineEnd = text.indexOf("\r\n");
            String line = lineEnd < 0 ? text : text.substring(0, lineEnd);
            int status = status(line);
            if (status < 200 || status > 299) {
                String reason = line.length() > 13 ? line.substring(13).strip() : "";
                fail(new ProxyConnectException(proxy, origin, status, reason));
                return;
            }
            if (head.position() > end + 4) {
                // The origin speaks only after the client's TLS hello: bytes before it are the proxy's mistake.
                fail(new BadResponseException("proxy " + proxy + " sent bytes after its 2xx to CONNECT"));
                return;
            }
            Connection tunnelled = next.apply(endPoint());
            endPoint().setConnection(tunnelled);
            tunnelled.onOpen();
        } catch (IOException x) {
            fail(x);
        }
    }

    private int endOfHead() {
        byte[] bytes = head.array();
        for (int i = 3; i < head.position(); i++) {
            if (bytes[i] == '\n' && bytes[i - 1] == '\r' && bytes[i - 2] == '\n' && bytes[i - 3] == '\r') {
                return i - 3;
            }
        }
        return -1;
    }

    /** @return the status of an {@code HTTP/1.x SSS reason} line; throws if it is not one */
    private int status(String line) throws IOException {
        if (line.length() >= 12
                && line.startsWith("HTTP/1.")
                && line.charAt(8) == ' '
                && (line.length() == 12 || line.charAt(12) == ' ')) {
            try {
                return Integer.parseInt(line.substring(9, 12));
            } catch (NumberFormatException x) {
                // invalid below
            }
        }
        throw new BadResponseException("invalid answer of proxy " + proxy + " to CONNECT: '" + line + "'");
    }

    private static IOException asIOException(Throwable x) {
        return x instanceof IOException io ? io : new IOException(x);
    }

    private void fail(IOException cause) {
        if (failure == null) {
            failure = cause;
        }
        endPoint().close(cause);
    }

    /** @return why the tunnel failed, or null if the endpoint closed for another reason (a connect timeout) */
    IOException failure() {
        return failure;
    }

    @Override
    public String toString() {
        return "ProxyTunnel@" + Integer.toHexString(hashCode()) + "{" + proxy + " -> " + origin + ", " + endPoint()
                + "}";
    }
}
