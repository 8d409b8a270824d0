package dev.quarry.server.internal.h1;

import dev.quarry.core.Callback;
import dev.quarry.core.InvocationType;
import dev.quarry.http.HttpField;
import dev.quarry.http.HttpFields;
import dev.quarry.http.HttpHeader;
import dev.quarry.http.HttpVersion;
import dev.quarry.io.Connection;
import dev.quarry.io.EndPoint;
import dev.quarry.io.ServerConnector;
import dev.quarry.server.internal.Http2Upgrade;
import dev.quarry.server.internal.ServerContext;
import dev.quarry.server.internal.h2.Http2ConnectionFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Hands an HTTP/1.1 connection over to HTTP/2: after the prior-knowledge preface, or after answering a valid
 * {@code Upgrade: h2c} request with 101 (the request then becomes stream 1).
 *
 * <p>Thread-safety: used by the connection's processing thread only, except the completion of the 101 write, which
 * runs after processing stopped (the connection is not idle meanwhile, see {@link Http1ResponseWriter#flushPending}).
 * Nothing here runs on the per-request hot path of HTTP/1.1: only a request carrying {@code Upgrade} gets past the
 * first checks of {@link #isH2cUpgrade}.
 */
final class Http2Handover {
    private static final byte[] SWITCHING_TO_H2C =
            "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII);

    private final Http1Connection connection;
    private final Http1Request request;
    private final ServerContext context;
    private final ServerConnector connector;
    private final EndPoint endPoint;
    private final Http1Buffers buffers;

    Http2Handover(
            Http1Connection connection,
            Http1Request request,
            ServerContext context,
            ServerConnector connector,
            EndPoint endPoint,
            Http1Buffers buffers) {
        this.connection = connection;
        this.request = request;
        this.context = context;
        this.connector = connector;
        this.endPoint = endPoint;
        this.buffers = buffers;
    }

    /** The client sent the HTTP/2 preface: HTTP/2 takes over with the bytes buffered after it. */
    void prior() {
        Connection http2 = context.http2().orElseThrow().prior(connector, endPoint, buffers.inputOrEmpty());
        switchTo(http2);
    }

    /**
     * Whether the request asks to upgrade to h2c and may (RFC 7540 3.2): {@code Upgrade: h2c}, exactly one
     * {@code HTTP2-Settings}, both named in {@code Connection}, HTTP/1.1, and no content (the body of an upgraded
     * request would have to be carried over; clients upgrade with bodiless requests).
     */
    static boolean isH2cUpgrade(ServerContext context, Http1Request request) {
        if (context.http2().isEmpty()
                || request.version != HttpVersion.HTTP_1_1
                || request.parser.contentLength() != 0) {
            return false;
        }
        HttpFields requestFields = request.fields;
        if (!requestFields.containsToken(HttpHeader.UPGRADE, "h2c")) {
            return false;
        }
        if (requestFields.getAll("HTTP2-Settings").size() != 1) {
            return false;
        }
        return requestFields.containsToken(HttpHeader.CONNECTION, "upgrade")
                && requestFields.containsToken(HttpHeader.CONNECTION, "http2-settings");
    }

    /**
     * Answers 101 and hands the connection to HTTP/2, with the request as stream 1.
     *
     * @return true if the 101 is being written; false if the settings are malformed and the request must be answered
     *     over HTTP/1.1 instead
     */
    boolean upgradeToH2c() {
        HttpFields requestFields = request.fields;
        byte[] settings;
        try {
            settings = Http2ConnectionFactory.decodeSettingsField(
                    requestFields.get("HTTP2-Settings").orElseThrow());
        } catch (IllegalArgumentException x) {
            return false; // a malformed HTTP2-Settings: answer the request over HTTP/1.1 instead
        }
        HttpFields fields = new HttpFields(requestFields.size());
        for (HttpField field : requestFields) {
            if (!field.is(HttpHeader.CONNECTION)
                    && !field.is(HttpHeader.UPGRADE)
                    && !field.is("HTTP2-Settings")
                    && !field.is(HttpHeader.KEEP_ALIVE)) {
                fields.add(field);
            }
        }
        Http2Upgrade.UpgradedRequest upgraded =
                new Http2Upgrade.UpgradedRequest(request.method, request.target, fields, settings, new byte[0]);
        request.messageComplete = false;
        buffers.ensureOutput();
        ByteBuffer out = buffers.output.byteBuffer();
        out.put(SWITCHING_TO_H2C);
        out.flip();
        connection.writer.flushPending = true; // not idle: a graceful shutdown must not close it under the 101
        endPoint.write(
                Callback.from(
                        InvocationType.NON_BLOCKING,
                        () -> switchTo(context.http2()
                                .orElseThrow()
                                .upgraded(connector, endPoint, upgraded, buffers.inputOrEmpty())),
                        connection::onWriteFailed),
                out);
        return true;
    }

    private void switchTo(Connection http2) {
        connection.closed = true; // this connection is done: nothing of it may run again
        buffers.releaseAll();
        endPoint.setConnection(http2);
        http2.onOpen();
    }

    @Override
    public String toString() {
        return "Http2Handover{" + (context.http2().isPresent() ? "h2c enabled" : "HTTP/1.1 only") + "}";
    }
}
