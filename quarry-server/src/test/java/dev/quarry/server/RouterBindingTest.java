package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quarry.core.InvocationType;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A router is configured before the server starts; from then on its routes, and so its invocation type, are fixed. */
class RouterBindingTest {
    private Server server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private static AsyncHandler hello() {
        return AsyncHandler.nonBlocking((req, res, cb) -> res.write(true, ByteBuffer.wrap(new byte[] {'h', 'i'}), cb));
    }

    @Test
    void theInvocationTypeFollowsTheRoutesUntilTheServerStarts() throws Exception {
        Router router = new Router().route("GET /async", hello());
        assertEquals(InvocationType.NON_BLOCKING, router.invocationType());
        router.route("GET /blocking", (req, res) -> res.send("blocking"));
        assertEquals(InvocationType.EITHER, router.invocationType(), "a blocking route may block");

        server = Server.builder().http("127.0.0.1", 0).handler(router).build().start();

        assertEquals(InvocationType.EITHER, router.invocationType());
    }

    @Test
    void routesCannotChangeOnceTheServerHasStarted() throws Exception {
        Router router = new Router().route("GET /async", hello());
        server = Server.builder().http("127.0.0.1", 0).handler(router).build().start();

        IllegalStateException route =
                assertThrows(IllegalStateException.class, () -> router.route("GET /late", (req, res) -> {}));
        assertThrows(IllegalStateException.class, () -> router.fallback(hello()));

        assertTrue(route.getMessage().contains("fixed once the server has started"), route.getMessage());
        assertEquals(InvocationType.NON_BLOCKING, router.invocationType(), "unchanged by the refused route");
    }

    @Test
    void aRouterMountedAsARouteIsBoundWithTheServer() throws Exception {
        Router api = new Router().route("GET /api/hello", hello());
        Router root = new Router().route("GET /api/*", api);
        server = Server.builder().http("127.0.0.1", 0).handler(root).build().start();

        assertThrows(IllegalStateException.class, () -> api.route("GET /api/late", hello()), "bound, so fixed");
    }

    @Test
    void aMountedRoutersBlockingRouteRunsOnAVirtualThread() throws Exception {
        Router api = new Router()
                .route(
                        "GET /api/where",
                        (req, res) -> res.send(
                                Thread.currentThread().isVirtual()
                                        ? "virtual"
                                        : "platform " + Thread.currentThread().getName()));
        Router root = new Router().route("GET /api/*", api);
        server = Server.builder().http("127.0.0.1", 0).handler(root).build().start();

        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(server.uri().resolve("/api/where"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());

        assertEquals(200, response.statusCode(), response::body);
        assertEquals("virtual", response.body());
    }
}
