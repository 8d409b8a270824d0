package dev.quarry.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.quarry.server.Server;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The status page of {@code quarry serve} as a person sees it in a real browser: Debian's headless Chromium, driven
 * over the DevTools protocol with the JDK's WebSocket. The demo server runs in-process with some traffic behind it and
 * one throttled download in progress; the page is loaded once, and what it showed then is kept for the checks, so
 * that the self-refresh cannot change it under them. Skipped where no Chromium is installed.
 *
 * <p>With {@code -Dquarry.screenshot=FILE}, the first load is also saved as a PNG (docs/status-page.png is made so).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatusPageBrowserTest {
    private static final List<String> SECTIONS = List.of(
            "server",
            "thread pool",
            "virtual threads",
            "selector strategy",
            "connectors",
            "connections",
            "requests",
            "bytes",
            "buffers",
            "timer",
            "throttle");
    private static final List<String> REQUESTS = List.of("/", "/hello/browser", "/hello", "/quarry/status.json");
    private static final int REQUESTS_SENT = REQUESTS.size() + 1; // and one POST /echo
    private static final String NO_CHROMIUM = "no Chromium: /usr/bin/chromium is missing and $CHROMIUM names no"
            + " executable (apt-get install chromium to run this test)";
    private static final Duration REFRESH_BOUND = Duration.ofSeconds(6);

    /**
     * Everything the first load showed, read in one evaluation: title, the visible text, the section headings as
     * displayed, each section's rows (label to displayed value; the first row of a label wins; a row under a group
     * heading such as "limits" is labelled "limits: label"), and the layout.
     */
    private static final String READ_PAGE = """
            (() => {
              const sections = Array.from(document.querySelectorAll('section'));
              const values = {};
              for (const s of sections) {
                const rows = {};
                for (const table of s.querySelectorAll('table')) {
                  let group = '';
                  for (const tr of table.querySelectorAll(':scope > tbody > tr')) {
                    const th = tr.querySelector(':scope > th');
                    if (th) { group = th.textContent + ': '; continue; }
                    const k = tr.querySelector(':scope > td.k'), v = tr.querySelector(':scope > td.v');
                    if (k && v && !((group + k.innerText) in rows)) rows[group + k.innerText] = v.innerText;
                  }
                }
                values[s.querySelector('h2').textContent] = rows;
              }
              return {
                title: document.title,
                text: document.body.innerText,
                headings: sections.map(s => s.querySelector('h2').innerText),
                values: values,
                scrollWidth: document.documentElement.scrollWidth,
                innerWidth: window.innerWidth,
                valueFontPx: parseFloat(getComputedStyle(document.querySelector('td.v')).fontSize),
                boxes: sections.map(s => {
                  const r = s.getBoundingClientRect();
                  return {name: s.querySelector('h2').textContent, left: r.left, right: r.right,
                          width: r.width, height: r.height, overflow: s.scrollWidth - s.clientWidth};
                })
              };
            })()""";

    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private boolean noChromium;
    private Server server;
    private URI statusPage;
    private Socket download;
    private Chromium chromium;
    private DevToolsPage page;
    private Map<String, Object> firstLoad;

    @BeforeAll
    void openTheStatusPageInChromium() throws Exception {
        Optional<Path> binary = Chromium.binary();
        noChromium = binary.isEmpty();
        if (noChromium) {
            // Said here too: surefire reports an assumption failed in @BeforeAll as nothing at all.
            System.err.println("StatusPageBrowserTest skipped: " + NO_CHROMIUM);
            return;
        }
        server = ServeCommand.build(Options.parse(
                        List.of("--port", "0", "--host", "127.0.0.1", "--jmx", "off"),
                        ServeCommand.OPTIONS,
                        ServeCommand.FLAGS))
                .start();
        statusPage = server.uri().resolve("/quarry/status");
        sendSomeRequests();

        chromium = Chromium.start(binary.get(), Duration.ofSeconds(30));
        page = DevToolsPage.connect(http, chromium.pageEndpoint(http, deadline(Duration.ofSeconds(15))));
        page.send("Page.enable", Map.of());
        page.send("Network.enable", Map.of());

        // Started last, so that it is still running (10 s at 20 KiB/s) when the page is read.
        download = startThrottledDownload();
        awaitServer(() -> longValue(server.status().section("throttle").get("waiting writes")) >= 1, "a parked write");

        Map<String, Object> navigated = page.send("Page.navigate", Map.of("url", statusPage.toString()));
        assertEquals(null, navigated.get("errorText"), "navigation to " + statusPage);
        page.await(
                "location.href + ' ' + document.readyState",
                (statusPage + " complete")::equals,
                deadline(Duration.ofSeconds(20)));
        firstLoad = DevToolsPage.map(page.evaluate(READ_PAGE));
        saveScreenshotIfAsked();
    }

    @BeforeEach
    void needsChromium() {
        assumeFalse(noChromium, NO_CHROMIUM);
    }

    @AfterAll
    void closeEverything() throws Exception {
        try {
            if (page != null) {
                page.close();
            }
        } finally {
            try {
                if (chromium != null) {
                    chromium.close(); // destroyForcibly on the browser and its helpers, then deletes the profile
                }
            } finally {
                try {
                    if (download != null) {
                        download.close(); // cancels the throttled download
                    }
                } finally {
                    if (server != null) {
                        server.stop();
                    }
                }
            }
        }
    }

    @Test
    void titleAndEverySectionHeadingAreShown() {
        assertEquals("Quarry status", firstLoad.get("title"));
        String text = text();
        assertTrue(text.startsWith("Quarry status"), "the page starts with its title: " + head(text));
        List<String> headings = new ArrayList<>();
        for (Object heading : (List<?>) firstLoad.get("headings")) {
            headings.add(heading.toString().toLowerCase(java.util.Locale.ROOT));
        }
        assertEquals(SECTIONS, headings);
    }

    @Test
    void requestCountsIncludeTheRequestsSent() {
        Map<String, Object> requests = values("requests");
        assertTrue(number(requests, "total") >= REQUESTS_SENT, "total requests shown: " + requests);
        assertTrue(number(requests, "2xx") >= REQUESTS_SENT, "2xx responses shown: " + requests);
        Map<String, Object> bytes = values("bytes");
        assertTrue(number(bytes, "in") > 0 && number(bytes, "out") > 0, "bytes shown: " + bytes);
    }

    @Test
    void connectorShowsTheAddressItListensOn() {
        String listening = "http/1.1 (h2c) on 127.0.0.1:" + server.uri().getPort();
        Map<String, Object> connector = values("connectors");
        assertEquals(listening, connector.get("listening"));
        assertTrue(text().contains(listening), "visible text mentions " + listening);
        assertTrue(number(connector, "accepted") >= 1, "accepted connections shown: " + connector);
    }

    @Test
    void throttleShowsTheDownloadInProgress() {
        Map<String, Object> throttle = values("throttle");
        assertEquals(
                "20 KiB/s per request (burst 32 KiB)", throttle.get("limits: summary"), "the demo's download limit");
        assertEquals(20 * 1024, number(throttle, "limits: rate per request B/s"), "the same limit, as a number");
        assertTrue(number(throttle, "active requests") >= 1, "the download is in progress: " + throttle);
        assertTrue(
                number(throttle, "high-water marks since start: waiting writes") >= 1,
                "its writes were parked: " + throttle);
        assertTrue(throttle.containsKey("waiting writes"), "waiting writes are shown: " + throttle);
    }

    @Test
    void pageFitsTheWindowWidthAndIsReadable() {
        long scrollWidth = longValue(firstLoad.get("scrollWidth"));
        long innerWidth = longValue(firstLoad.get("innerWidth"));
        assertTrue(scrollWidth <= innerWidth, "no horizontal scrolling: " + scrollWidth + " > " + innerWidth);
        double fontPx = ((Number) firstLoad.get("valueFontPx")).doubleValue();
        assertTrue(fontPx >= 12, "values are at least 12 px: " + fontPx);
    }

    @Test
    void everySectionHasAVisibleBoxInsideTheWindowThatHoldsItsContent() {
        double innerWidth = longValue(firstLoad.get("innerWidth"));
        List<?> boxes = (List<?>) firstLoad.get("boxes");
        assertEquals(SECTIONS.size(), boxes.size(), "one box per section");
        for (Object item : boxes) {
            Map<String, Object> box = DevToolsPage.map(item);
            String where = "section " + box.get("name") + ": " + box;
            assertTrue(decimal(box, "width") > 0 && decimal(box, "height") > 0, "has a size, " + where);
            assertTrue(decimal(box, "left") >= 0 && decimal(box, "right") <= innerWidth, "inside the window, " + where);
            assertTrue(decimal(box, "overflow") <= 0, "nothing sticks out of it, " + where);
        }
    }

    @Test
    void nothingButThePageItselfIsRequested() {
        Set<String> requested = new TreeSet<>();
        for (Map<String, Object> event : page.events("Network.requestWillBeSent")) {
            requested.add(String.valueOf(DevToolsPage.map(event.get("request")).get("url")));
        }
        assertEquals(Set.of(statusPage.toString()), requested, "no external asset, no other request");
    }

    @Test
    void pageRefreshesItselfAndShowsTheNewUptime() {
        // The marker lives in this document only: its absence proves that a new document was loaded.
        String before = page.evaluate("window.quarryOldDocument = true; document.querySelector('.sub').innerText")
                .toString();
        long start = System.nanoTime();
        Object after = page.await(
                "window.quarryOldDocument === undefined && document.readyState === 'complete'"
                        + " ? document.querySelector('.sub').innerText : null",
                value -> value instanceof String text && !text.equals(before),
                start + REFRESH_BOUND.toNanos());
        assertFalse(uptime(before).equals(uptime(after.toString())), "uptime changed: " + before + " -> " + after);
    }

    private void sendSomeRequests() throws IOException, InterruptedException {
        for (String path : REQUESTS) {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(server.uri().resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), path);
        }
        HttpResponse<String> echo = http.send(
                HttpRequest.newBuilder(server.uri().resolve("/echo"))
                        .POST(HttpRequest.BodyPublishers.ofString("browser"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("browser", echo.body());
    }

    /** Asks for the throttled file and reads only the response head: the rest trickles in until the socket closes. */
    private Socket startThrottledDownload() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.uri().getPort());
        socket.setSoTimeout(10_000);
        OutputStream out = socket.getOutputStream();
        out.write("GET /download/200k.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed before the response head: " + head);
            }
            head.append((char) b);
        }
        assertTrue(head.toString().startsWith("HTTP/1.1 200"), head.toString());
        return socket;
    }

    private void saveScreenshotIfAsked() throws IOException {
        String file = System.getProperty("quarry.screenshot", "");
        if (file.isBlank()) {
            return;
        }
        Map<String, Object> shot = page.send("Page.captureScreenshot", Map.of("format", "png"));
        Path target = Path.of(file).toAbsolutePath();
        Files.createDirectories(target.getParent());
        Files.write(target, Base64.getDecoder().decode(shot.get("data").toString()));
        System.out.println("status page screenshot saved to " + target);
    }

    /**
     * Polls the in-process server (cheap: it reads counters) until {@code condition} holds, pausing a millisecond
     * between looks; fails after 10 s.
     */
    private static void awaitServer(BooleanSupplier condition, String what) {
        long deadline = deadline(Duration.ofSeconds(10));
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("server never showed " + what + " within 10 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static long deadline(Duration timeout) {
        return System.nanoTime() + timeout.toNanos();
    }

    private String text() {
        return firstLoad.get("text").toString();
    }

    private Map<String, Object> values(String section) {
        Map<String, Object> values =
                DevToolsPage.map(DevToolsPage.map(firstLoad.get("values")).get(section));
        assertFalse(values.isEmpty(), "section " + section + " shows values");
        return values;
    }

    /** @return a displayed number such as {@code 1,234} or {@code 0.50} */
    private static double number(Map<String, Object> values, String label) {
        Object shown = values.get(label);
        assertTrue(shown != null, "row '" + label + "' is shown in " + values);
        try {
            return Double.parseDouble(shown.toString().replace(",", ""));
        } catch (NumberFormatException x) {
            throw new AssertionError("row '" + label + "' shows no number: '" + shown + "'", x);
        }
    }

    private static double decimal(Map<String, Object> values, String key) {
        return ((Number) values.get(key)).doubleValue();
    }

    private static long longValue(Object value) {
        return value instanceof Number n ? n.longValue() : Long.MIN_VALUE;
    }

    private static String uptime(String subtitle) {
        Matcher matcher = Pattern.compile("up ([^\\u00b7]+)").matcher(subtitle);
        return matcher.find() ? matcher.group(1).trim() : subtitle;
    }

    private static String head(String text) {
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }

    @Override
    public String toString() {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("server", server);
        state.put("chromium", chromium);
        state.put("page", page);
        return "StatusPageBrowserTest" + state;
    }
}
