package dev.quarry.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Set;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StatusAndJmxTest {
    private Server server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private Server start() throws Exception {
        server = Server.builder()
                .name("status-test")
                .http("127.0.0.1", 0)
                .route("GET /hello", (req, res) -> res.send("hi"))
                .statusPage("/quarry/status")
                .statusContributor(new StatusContributor() {
                    @Override
                    public String statusName() {
                        return "custom";
                    }

                    @Override
                    public Map<String, Object> status() {
                        return Map.of("answer", 42L);
                    }
                })
                .jmx(true)
                .build()
                .start();
        return server;
    }

    @Test
    void statusJsonReportsThreadsRequestsAndContributedSections() throws Exception {
        start();
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        client.send(
                HttpRequest.newBuilder(server.uri().resolve("/hello")).build(), HttpResponse.BodyHandlers.ofString());

        HttpResponse<String> json = client.send(
                HttpRequest.newBuilder(server.uri().resolve("/quarry/status.json"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());

        assertEquals(200, json.statusCode());
        assertEquals(
                "application/json", json.headers().firstValue("content-type").orElseThrow());
        String body = json.body();
        assertTrue(body.startsWith("{\"name\":\"status-test\""), body);
        assertTrue(body.contains("\"thread pool\":{\"threads\":"), body);
        assertTrue(body.contains("\"custom\":{\"answer\":42}"), body);
        assertTrue(server.status().section("requests").get("total") instanceof Long total && total >= 1, body);
    }

    @Test
    void statusPageIsSelfContainedHtmlThatRefreshesItself() throws Exception {
        start();
        HttpResponse<String> html = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build()
                .send(
                        HttpRequest.newBuilder(server.uri().resolve("/quarry/status"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

        assertEquals(200, html.statusCode());
        assertTrue(html.headers().firstValue("content-type").orElseThrow().startsWith("text/html"));
        assertTrue(html.body().contains("<h1>Quarry status</h1>"));
        assertTrue(html.body().contains("http-equiv=\"refresh\""));
        assertTrue(!html.body().contains("src=\"http") && !html.body().contains("href=\"http"), "no external asset");
    }

    @Test
    void threadPoolAndConnectorAreMBeansAndThreadLimitsAreWritable() throws Exception {
        start();
        MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> names = mbeans.queryNames(new ObjectName("dev.quarry:server=status-test,*"), null);
        ObjectName pool = new ObjectName("dev.quarry:server=status-test,type=ThreadPool");
        assertTrue(names.contains(pool), names.toString());
        assertTrue(names.contains(new ObjectName("dev.quarry:server=status-test,type=Connector,index=0")));

        mbeans.setAttribute(pool, new Attribute("MaxThreads", 77));

        assertEquals(77, server.threadPool().getMaxThreads());
        assertEquals(
                1L,
                mbeans.getAttribute(
                                        new ObjectName("dev.quarry:server=status-test,type=Connector,index=0"),
                                        "OpenConnections")
                                instanceof Long l
                        ? 1L
                        : 0L);
        server.stop();
        assertTrue(mbeans.queryNames(new ObjectName("dev.quarry:server=status-test,*"), null)
                .isEmpty());
        server = null;
    }
}
