package dev.quarry.server.internal.h1;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.thread.TryExecutor;
import dev.quarry.core.timer.HashedWheelTimer;
import dev.quarry.server.AsyncHandler;
import dev.quarry.server.Http2Config;
import dev.quarry.server.HttpConfig;
import dev.quarry.server.ServerStatistics;
import dev.quarry.server.internal.DateField;
import dev.quarry.server.internal.ErrorPages;
import dev.quarry.server.internal.ExchangePool;
import dev.quarry.server.internal.HandlerInvoker;
import dev.quarry.server.internal.ServerContext;
import dev.quarry.server.internal.h2.Http2ContentBudget;
import dev.quarry.server.test.FakeEndPoint;
import java.util.Optional;

/** HTTP/1.1 connections over a test endpoint, with the server's defaults and no server around them. */
final class TestHttp1Connections {
    private TestHttp1Connections() {}

    /**
     * @return a connection serving {@code handler} (blocking handlers on new virtual threads) on {@code endPoint},
     *     which it is set on; its timer is never started, so no idle timeout fires
     */
    static Http1Connection of(ByteBufferPool pool, AsyncHandler handler, FakeEndPoint endPoint) {
        HashedWheelTimer timer =
                HashedWheelTimer.builder().name("test-connection-timer").build();
        ServerContext context = new ServerContext(
                handler,
                new HandlerInvoker(task -> Thread.ofVirtual().start(task), true, 16),
                HttpConfig.DEFAULT,
                pool,
                timer,
                new DateField(timer),
                Optional.empty(),
                new ServerStatistics(),
                Optional.empty(),
                TryExecutor.noReserved(task -> Thread.ofPlatform().start(task)),
                Http2Config.DEFAULT,
                ErrorPages.NONE,
                new Http2ContentBudget(1 << 20),
                new ExchangePool(4));
        Http1Connection connection = new Http1Connection(context, null, endPoint);
        endPoint.setConnection(connection);
        return connection;
    }
}
