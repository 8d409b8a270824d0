package dev.quarry.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quarry.core.buffer.ByteBufferPool;
import dev.quarry.core.test.LeakTrackingPoolExtension;
import dev.quarry.http.HttpVersion;
import dev.quarry.server.Server;
import java.net.CookieManager;
import java.net.CookieStore;
import java.net.HttpCookie;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Cookies kept in the store the application gives, and none without one. */
@ExtendWith(LeakTrackingPoolExtension.class)
class CookieStoreTest {
    private Server server;
    private HttpClient client;
    private String base;

    @BeforeEach
    void startServer() throws Exception {
        server = Server.builder()
                .http("127.0.0.1", 0)
                .route("GET /login", (req, res) -> {
                    // Set on a redirect: stored before the redirect is followed.
                    res.headers().add("Set-Cookie", "session=abc123; Path=/; HttpOnly");
                    res.headers().add("Set-Cookie", "admin=yes; Path=/admin");
                    res.headers().add("Set-Cookie", "tls=only; Path=/; Secure");
                    res.header("Location", "/cookies");
                    res.status(302).send("");
                })
                .route(
                        "GET /cookies",
                        (req, res) -> res.send(req.header("Cookie").orElse("(none)")))
                .route(
                        "GET /admin/cookies",
                        (req, res) -> res.send(req.header("Cookie").orElse("(none)")))
                .route("GET /logout", (req, res) -> {
                    res.headers().add("Set-Cookie", "session=; Path=/; Max-Age=0");
                    res.send("bye");
                })
                .build()
                .start();
        base = "http://127.0.0.1:" + server.port();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        server.stop();
    }

    @Test
    void cookiesSetOnARedirectAreSentOnTheRequestsThatMatchThem(ByteBufferPool pool) throws Exception {
        CookieStore store = new CookieManager().getCookieStore();
        client = HttpClient.builder().bufferPool(pool).cookieStore(store).build();
        // The redirect's cookies went with the request that followed it; not the Secure one over http.
        assertEquals(
                "session=abc123", client.send(HttpRequest.get(base + "/login")).asString());
        assertEquals(3, store.getCookies().size(), store.getCookies().toString());
        // The path decides: /admin gets both, the more specific path first (RFC 6265 5.4).
        assertEquals(
                "admin=yes; session=abc123",
                client.send(HttpRequest.get(base + "/admin/cookies")).asString());
        // The request's own Cookie field is kept, the store's cookies added to it.
        HttpRequest own = HttpRequest.newBuilder(base + "/cookies")
                .header("Cookie", "theme=dark")
                .build();
        assertEquals("theme=dark; session=abc123", client.send(own).asString());
        // An expired cookie is removed.
        assertEquals("bye", client.send(HttpRequest.get(base + "/logout")).asString());
        assertEquals("(none)", client.send(HttpRequest.get(base + "/cookies")).asString());
    }

    @Test
    void cookiesGoOverHttp2Too(ByteBufferPool pool) throws Exception {
        CookieStore store = new CookieManager().getCookieStore();
        client = HttpClient.builder()
                .bufferPool(pool)
                .http2(true)
                .cookieStore(store)
                .build();
        assertEquals(
                "session=abc123", client.send(HttpRequest.get(base + "/login")).asString());
        HttpRequest own = HttpRequest.newBuilder(base + "/admin/cookies")
                .header("Cookie", "theme=dark")
                .build();
        HttpResponse response = client.send(own);
        assertEquals(HttpVersion.HTTP_2, response.version());
        assertEquals("theme=dark; admin=yes; session=abc123", response.asString());
    }

    @Test
    void theApplicationsCookiesInTheStoreAreSent(ByteBufferPool pool) throws Exception {
        CookieStore store = new CookieManager().getCookieStore();
        HttpCookie cookie = new HttpCookie("token", "t1");
        cookie.setPath("/");
        cookie.setVersion(0);
        store.add(java.net.URI.create(base + "/"), cookie);
        client = HttpClient.builder().bufferPool(pool).cookieStore(store).build();
        assertEquals("token=t1", client.send(HttpRequest.get(base + "/cookies")).asString());
    }

    @Test
    void aFailingStoreCostsTheCookiesNotTheRequest(ByteBufferPool pool) throws Exception {
        CookieStore broken = new CookieManager().getCookieStore();
        CookieStore failing = (CookieStore) java.lang.reflect.Proxy.newProxyInstance(
                CookieStore.class.getClassLoader(), new Class<?>[] {CookieStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("add") || method.getName().equals("get")) {
                        throw new IllegalStateException("the store is broken");
                    }
                    return method.invoke(broken, args);
                });
        client = HttpClient.builder()
                .bufferPool(pool)
                .cookieStore(failing)
                .requestTimeout(Duration.ofSeconds(10))
                .build();
        assertEquals("(none)", client.send(HttpRequest.get(base + "/login")).asString());
        assertEquals(
                "(none)",
                client.sendAsync(HttpRequest.get(base + "/login"))
                        .get(10, TimeUnit.SECONDS)
                        .asString());
    }

    @Test
    void withoutAStoreNoCookieIsKeptOrSent(ByteBufferPool pool) throws Exception {
        client = HttpClient.builder().bufferPool(pool).build();
        assertEquals("(none)", client.send(HttpRequest.get(base + "/login")).asString());
        HttpRequest own = HttpRequest.newBuilder(base + "/cookies")
                .header("Cookie", "theme=dark")
                .build();
        assertEquals("theme=dark", client.send(own).asString());
    }
}
