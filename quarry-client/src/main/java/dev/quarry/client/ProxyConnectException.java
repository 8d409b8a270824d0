package dev.quarry.client;

import java.net.ConnectException;

/**
 * A proxy refused to open a tunnel ({@code CONNECT}) to an origin: it answered with a status other than 2xx, e.g.
 * 407 when it wants credentials ({@link HttpProxy#basicAuth}) or 403 when it does not allow the destination.
 */
public final class ProxyConnectException extends ConnectException {
    private static final long serialVersionUID = 1L;

    /** The status the proxy answered with. */
    private final int status;

    ProxyConnectException(HttpProxy proxy, Origin origin, int status, String reason) {
        super("proxy " + proxy + " refused CONNECT to " + origin.host() + ":" + origin.port() + ": " + status
                + (reason.isEmpty() ? "" : " " + reason));
        this.status = status;
    }

    /** @return the status the proxy answered the {@code CONNECT} with (e.g. 407) */
    public int status() {
        return status;
    }
}
