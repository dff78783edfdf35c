package io.hybridconnector.it.dist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import io.hybridconnector.H2Client;
import io.hybridconnector.TlsKeys;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The rest of what Tomcat users rely on, through a real distribution, with one test body for stock and ours:
 * WebSocket (the bundled {@code examples} echo endpoint), HTTP/2 over cleartext ({@code Http2Protocol} nested in
 * each HTTP connector; by upgrade with the JDK client, by prior knowledge with curl) and AJP/1.3 with a secret
 * (a hand-written AJP client, and Apache httpd's {@code mod_proxy_ajp} in front when httpd is installed).
 * <p>
 * One Tomcat per subclass (one per Tomcat line) in a {@code CATALINA_BASE} of its own under {@code target/}
 * ({@code protocols-server.xml}: stock NIO and ours for HTTP, stock AJP and ours for AJP), started once for all
 * tests; the last test stops it and checks the shutdown. Tests run on the JUnit thread; the JDK HttpClient's
 * threads only feed {@link EchoListener}'s queues.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class ProtocolsTestBase {

    /** Which connector of each pair a test talks to. */
    enum Side {
        /** {@code Http11NioProtocol} and {@code AjpNioProtocol} ({@code "AJP/1.3"}). */
        STOCK,
        /** {@code HybridHttp11Protocol} and {@code HybridAjpProtocol}. */
        OURS
    }

    private static final String SECRET = "it-secret-7f3a";
    private static final String WRONG_SECRET = "not-the-secret";
    private static final String ECHO_PATH = "/examples/websocket/echoProgrammatic";
    /** How many idle WebSockets a connector holds at once, and for how long, before each must still echo. */
    private static final int IDLE_SOCKETS = 200;
    private static final int IDLE_SECONDS = 3;
    /** Opened this many at a time: the listen backlog is Tomcat's default (100) on both connectors. */
    private static final int OPEN_BATCH = 50;
    private static final long TIMEOUT_SECONDS = 20;

    private TlsKeys tls;
    private Path keystore;
    private final HttpClient http1 = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    private TomcatDistribution tomcat;
    private PrivateHttpd httpd;
    private String httpdUnavailable;
    private Path target;

    /** The name of the system property that holds this class's Tomcat version. */
    abstract String versionProperty();

    @BeforeAll
    void startTomcatAndHttpd() throws Exception {
        String version = System.getProperty(versionProperty());
        assertNotNull(version, "system property " + versionProperty() + " not set (run through Maven)");
        target = Path.of(System.getProperty("dist.dir")).getParent();
        tomcat = new TomcatDistribution(version, target.resolve("protocols-base-" + version));
        Path keys = Files.createDirectories(target.resolve("protocols-keys-" + version));
        tls = new TlsKeys(keys);
        Files.deleteIfExists(keys.resolve("server.p12"));
        keystore = tls.serverKeystore("server", "CN=localhost", "localhost");
        tomcat.installBase(serverXml(), List.of("examples", "docs"));
        tomcat.start();
        httpdUnavailable = PrivateHttpd.whyUnavailable();
        if (httpdUnavailable == null) {
            httpd = new PrivateHttpd(target.resolve("httpd-" + version), routes());
            httpd.start();
        }
    }

    @AfterAll
    void stopAll() throws InterruptedException {
        if (httpd != null) {
            httpd.stop();
        }
        if (tomcat != null) {
            tomcat.kill();
        }
    }

    private String serverXml() throws IOException {
        try (InputStream in = ProtocolsTestBase.class.getResourceAsStream("/protocols-server.xml")) {
            assertNotNull(in, "protocols-server.xml not on the test classpath");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("@shutdown.port@", String.valueOf(tomcat.shutdownPort))
                    .replace("@hybrid.port@", String.valueOf(tomcat.hybridPort))
                    .replace("@nio.port@", String.valueOf(tomcat.nioPort))
                    .replace("@hybrid.ajp.port@", String.valueOf(tomcat.hybridAjpPort))
                    .replace("@nio.ajp.port@", String.valueOf(tomcat.nioAjpPort))
                    .replace("@hybrid.tls.port@", String.valueOf(tomcat.hybridTlsPort))
                    .replace("@nio.tls.port@", String.valueOf(tomcat.nioTlsPort))
                    .replace("@keystore@", keystore.toString())
                    .replace("@keystore.password@", TlsKeys.PASSWORD)
                    .replace("@ajp.secret@", SECRET);
        }
    }

    /** Each pair is what the comparison assumes: ours beside stock, both HTTP connectors with h2c. */
    @Test
    @Order(0)
    void startupLogShowsEachConnectorWithItsProtocol() {
        String log = tomcat.catalinaOut();
        assertTrue(log.contains("Server version number: " + tomcat.version), log);
        String hybrid = "[\"http-hybrid-127.0.0.1-" + tomcat.hybridPort + "\"]";
        String nio = "[\"http-nio-127.0.0.1-" + tomcat.nioPort + "\"]";
        assertTrue(log.contains("HybridHttp11Protocol " + hybrid + " threads="), log);
        assertTrue(log.contains("HybridAjpProtocol [\"ajp-hybrid-127.0.0.1-" + tomcat.hybridAjpPort + "\"] threads="),
                log);
        assertTrue(log.contains("Starting ProtocolHandler [\"ajp-nio-127.0.0.1-" + tomcat.nioAjpPort + "\"]"), log);
        for (String connector : List.of(hybrid, nio)) {
            assertTrue(log.contains("The " + connector + " connector has been configured to support HTTP upgrade to [h2c]"),
                    log);
        }
    }

    // ------------------------------------------------------------------ WebSocket

    /**
     * The bundled chat example in a real browser: two headless Chromium tabs open {@code chat.xhtml}, each page's
     * script opens its WebSocket through the connector under test, and what one user types arrives at the other.
     */
    @ParameterizedTest
    @EnumSource(Side.class)
    @Order(7)
    void browserChatExchangesMessages(Side side) throws Exception {
        String why = HeadlessChromium.whyUnavailable();
        assumeTrue(why == null, why);
        String url = "http://127.0.0.1:" + httpPort(side) + "/examples/websocket/chat.xhtml";
        String opened = "document.getElementById('console').innerText.includes('WebSocket connection opened')";
        try (HeadlessChromium chromium = new HeadlessChromium(target.resolve("chromium"))) {
            HeadlessChromium.Page alice = chromium.open(url);
            HeadlessChromium.Page bob = chromium.open(url);
            alice.waitUntil(opened);
            bob.waitUntil(opened);
            String hello = "hello from alice over " + side;
            alice.typeAndPressEnter("chat", hello);
            bob.waitUntil("document.getElementById('console').innerText.includes('" + hello + "')");
            alice.waitUntil("document.getElementById('console').innerText.includes('" + hello + "')");
            bob.typeAndPressEnter("chat", "hi alice");
            alice.waitUntil("document.getElementById('console').innerText.includes('hi alice')");
            // Leave as users do, one after the other: the example broadcasts each departure, and a broadcast to a
            // socket the browser had already dropped would log a SEVERE "Broken pipe" from the example.
            alice.evaluate("Chat.socket.close()");
            bob.waitUntil("document.getElementById('console').innerText.includes('has disconnected')");
            bob.evaluate("Chat.socket.close()");
            bob.waitUntil("document.getElementById('console').innerText.includes('WebSocket closed')");
        }
    }


    @ParameterizedTest
    @EnumSource(Side.class)
    @Order(1)
    void webSocketEchoesTextBinaryPingAndClose(Side side) throws Exception {
        EchoListener listener = new EchoListener();
        WebSocket ws = openWebSocket(side, listener).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);

        String small = "Hello, WebSocket: caf\u00e9 \u20ac \u4e16\u754c";
        ws.sendText(small, true).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertEquals(small, listener.next(TIMEOUT_SECONDS).payload(), side + ": small text");

        // 100 KB with two- and three-byte UTF-8 characters, so fragment boundaries fall inside characters.
        String large = text(100 * 1024);
        ws.sendText(large, true).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        EchoListener.Message echoed = listener.next(TIMEOUT_SECONDS);
        assertEquals(large, echoed.payload(), side + ": 100 KB text sent as one frame");
        // Tomcat's echo endpoint is a MessageHandler.Partial: it sends back what it has read, a fragment at a time.
        assertTrue(echoed.fragments() > 1, side + ": 100 KB text came back in " + echoed.fragments() + " fragment(s)");

        // The same, sent by the client as five fragments of one message.
        int fifth = large.length() / 5;
        for (int i = 0; i < 5; i++) {
            String part = large.substring(i * fifth, i == 4 ? large.length() : (i + 1) * fifth);
            ws.sendText(part, i == 4).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        assertEquals(large, listener.next(TIMEOUT_SECONDS).payload(), side + ": 100 KB text sent in 5 fragments");

        byte[] binary = new byte[64 * 1024 + 3];
        new Random(42).nextBytes(binary);
        ws.sendBinary(ByteBuffer.wrap(binary), true).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertArrayEquals(binary, (byte[]) listener.next(TIMEOUT_SECONDS).payload(), side + ": 64 KB binary");

        byte[] ping = "ping-payload-123".getBytes(StandardCharsets.US_ASCII);
        ws.sendPing(ByteBuffer.wrap(ping)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertArrayEquals(ping, listener.nextPong(TIMEOUT_SECONDS), side + ": pong carries the ping's payload");

        ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        EchoListener.Close close = listener.closed().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertEquals(WebSocket.NORMAL_CLOSURE, close.statusCode(), side + ": the server's close frame: " + close);
        assertTrue(ws.isOutputClosed(), side + ": output closed after the close handshake");
    }

    /** Idle WebSockets hold no request; after a few seconds of silence every one of them must still echo. */
    @ParameterizedTest
    @EnumSource(Side.class)
    @Order(2)
    void manyIdleWebSocketsAllStillEcho(Side side) throws Exception {
        List<WebSocket> sockets = new ArrayList<>();
        List<EchoListener> listeners = new ArrayList<>();
        try {
            for (int from = 0; from < IDLE_SOCKETS; from += OPEN_BATCH) {
                List<CompletableFuture<WebSocket>> batch = new ArrayList<>();
                for (int i = from; i < Math.min(IDLE_SOCKETS, from + OPEN_BATCH); i++) {
                    EchoListener listener = new EchoListener();
                    listeners.add(listener);
                    batch.add(openWebSocket(side, listener));
                }
                for (CompletableFuture<WebSocket> ws : batch) {
                    sockets.add(ws.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
                }
            }
            Thread.sleep(TimeUnit.SECONDS.toMillis(IDLE_SECONDS));

            List<CompletableFuture<WebSocket>> sends = new ArrayList<>();
            for (int i = 0; i < sockets.size(); i++) {
                sends.add(sockets.get(i).sendText("still here " + i, true));
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            for (int i = 0; i < sockets.size(); i++) {
                assertEquals("still here " + i, listeners.get(i).next(TIMEOUT_SECONDS).payload(),
                        side + ": WebSocket " + i + " of " + IDLE_SOCKETS + " after " + IDLE_SECONDS + " s idle");
            }

            List<CompletableFuture<?>> closes = new ArrayList<>();
            for (int i = 0; i < sockets.size(); i++) {
                sockets.get(i).sendClose(WebSocket.NORMAL_CLOSURE, "");
                closes.add(listeners.get(i).closed());
            }
            CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } finally {
            sockets.forEach(WebSocket::abort);
        }
    }

    private CompletableFuture<WebSocket> openWebSocket(Side side, EchoListener listener) {
        return http1.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10))
                .buildAsync(URI.create("ws://127.0.0.1:" + httpPort(side) + ECHO_PATH), listener);
    }

    /** {@code length} characters cycling through one-, two- and three-byte UTF-8 characters. */
    private static String text(int length) {
        String alphabet = "abcdefghij\u00e9\u00fc\u00df\u20ac\u4e16\u754c0123456789";
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt((i * 7 + i / 13) % alphabet.length()));
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ HTTP/2 over cleartext

    /**
     * The h2c body matrix on this distribution: {@code POST /samples/echo} with bodies from 1 byte to 10 MB (around
     * the 8 KB read buffer and the 64 KB flow-control window), each on a new connection, by prior knowledge and by
     * upgrade, echoed byte for byte. Ours must lose none; stock's failures are printed beside (see
     * {@code Http2BodyParityTest} in {@code it-tests}: stock NIO has been seen to lose about one 1 MB prior-knowledge
     * echo in 150).
     */
    @ParameterizedTest
    @EnumSource(Side.class)
    @Order(3)
    void h2cBodiesEchoByteExactByPriorKnowledgeAndUpgrade(Side side) throws Exception {
        Random random = new Random(17);
        List<String> failures = new ArrayList<>();
        int echoes = 0;
        for (int size : new int[] { 1, 8191, 8192, 8193, 65536, 1 << 20, 10 << 20 }) {
            byte[] body = new byte[size];
            random.nextBytes(body);
            for (boolean upgrade : new boolean[] { false, true }) {
                for (int i = 0; i < (size >= 1 << 20 ? 2 : 5); i++) {
                    echoes++;
                    try (Socket s = new Socket("127.0.0.1", httpPort(side))) {
                        s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
                        H2Client client = upgrade ? H2Client.upgrade(s, "/samples/size?kb=0.1")
                                : H2Client.priorKnowledge(s);
                        H2Client.Response r = client.post("/samples/echo", body);
                        if (r.status != 200 || !Arrays.equals(body, r.body())) {
                            failures.add(size + " B " + (upgrade ? "upgrade" : "prior knowledge") + ": status "
                                    + r.status + ", " + r.body().length + " bytes back");
                        }
                    } catch (IOException e) {
                        failures.add(size + " B " + (upgrade ? "upgrade" : "prior knowledge") + ": " + e);
                    }
                }
            }
        }
        System.out.printf("h2c body matrix on Tomcat %s, %s: %d of %d echoes failed %s%n", tomcat.version, side,
                failures.size(), echoes, failures);
        if (side == Side.OURS) {
            assertEquals(List.of(), failures, "ours lost h2c echoes on Tomcat " + tomcat.version);
        }
    }

    /**
     * The JDK client asks for h2c with {@code Upgrade: h2c} on its first request to an {@code http://} address and
     * then keeps the HTTP/2 connection for the requests that follow, which here run at the same time as streams.
     * <p>
     * The upgrade request itself asks for less than 64 KB: on this machine a larger response to it stalls after 65,535
     * bytes (the initial flow-control window) on stock {@code Http11NioProtocol} as on ours, with the JDK 17 client and
     * with curl 7.88 {@code --http2}, until Tomcat's 20 s timeout; later streams on the same connection are not affected.
     */
    @ParameterizedTest
    @EnumSource(Side.class)
    @Order(3)
    void h2cByUpgradeCarriesConcurrentStreamsAndALargeResponse(Side side) throws Exception {
        HttpClient h2 = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_2).build();
        HttpResponse<byte[]> upgraded = h2.send(request(uri(httpPort(side), "/samples/size?kb=10")),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, upgraded.statusCode(), side + ": upgrade request");
        assertEquals(HttpClient.Version.HTTP_2, upgraded.version(), side + ": the upgrade request was not upgraded");
        assertEquals(10240, upgraded.body().length, side + ": upgrade request");

        URI changelog = uri(httpPort(side), "/docs/changelog.html");
        byte[] overHttp1 = http1.send(request(changelog), HttpResponse.BodyHandlers.ofByteArray()).body();
        assertTrue(overHttp1.length > 300_000, side + ": changelog.html is " + overHttp1.length + " bytes");
        HttpResponse<byte[]> large = h2.send(request(changelog), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(HttpClient.Version.HTTP_2, large.version(), side + ": changelog.html");
        assertArrayEquals(overHttp1, large.body(), side + ": changelog.html over h2c and over HTTP/1.1");

        List<CompletableFuture<HttpResponse<byte[]>>> streams = new ArrayList<>();
        for (int kb = 1; kb <= 16; kb++) {
            streams.add(h2.sendAsync(request(uri(httpPort(side), "/samples/size?kb=" + kb)),
                    HttpResponse.BodyHandlers.ofByteArray()));
        }
        streams.add(h2.sendAsync(request(changelog), HttpResponse.BodyHandlers.ofByteArray()));
        for (int i = 0; i < streams.size(); i++) {
            HttpResponse<byte[]> r = streams.get(i).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertEquals(200, r.statusCode(), side + ": " + r.uri());
            assertEquals(HttpClient.Version.HTTP_2, r.version(), side + ": " + r.uri());
            if (i < 16) {
                assertEquals((i + 1) * 1024, r.body().length, side + ": " + r.uri());
            } else {
                assertArrayEquals(overHttp1, r.body(), side + ": changelog.html as one of 17 concurrent streams");
            }
        }
    }

    /**
     * A foreign client: curl with prior knowledge (the connection starts with the HTTP/2 preface), then by upgrade (a
     * small first response, see above, then the large one on the same connection), then eight transfers in parallel
     * that curl multiplexes over one upgraded connection.
     * <p>
     * Each prior-knowledge run is a single transfer: curl 7.88 (Debian 12) fails the second transfer it puts on a
     * prior-knowledge connection ("Error in the HTTP2 framing layer") against stock NIO and ours alike.
     */
    @ParameterizedTest
    @EnumSource(Side.class)
    @Order(4)
    void h2cWithCurlByPriorKnowledgeAndUpgrade(Side side) throws Exception {
        Path curl = onPath("curl");
        assumeTrue(curl != null, "curl is not installed: h2c by prior knowledge with a foreign client not tested");
        URI changelog = uri(httpPort(side), "/docs/changelog.html");
        byte[] overHttp1 = http1.send(request(changelog), HttpResponse.BodyHandlers.ofByteArray()).body();
        Path out = target.resolve("curl-" + tomcat.version + "-" + side + ".html");

        String priorKnowledge = run(curl.toString(), "-sS", "--max-time", "20", "--http2-prior-knowledge",
                "-o", out.toString(), "-w", "%{http_version} %{response_code} %{num_connects}", changelog.toString());
        assertEquals("2 200 1", priorKnowledge.trim(), side + ": curl --http2-prior-knowledge");
        assertArrayEquals(overHttp1, Files.readAllBytes(out), side + ": changelog.html with curl --http2-prior-knowledge");

        Files.delete(out);
        String upgrade = run(curl.toString(), "-sS", "--max-time", "20", "--http2",
                "-w", "%{http_version} %{response_code} %{num_connects}\\n",
                "-o", "/dev/null", uri(httpPort(side), "/samples/size?kb=10").toString(),
                "-o", out.toString(), changelog.toString());
        assertEquals(List.of("2 200 1", "2 200 0"), upgrade.lines().collect(Collectors.toList()),
                side + ": curl --http2, two transfers on the upgraded connection");
        assertArrayEquals(overHttp1, Files.readAllBytes(out), side + ": changelog.html with curl --http2");

        List<String> command = new ArrayList<>(List.of(curl.toString(), "-sS", "--max-time", "20",
                "--http2", "--parallel", "--parallel-max", "8",
                "-w", "%{http_version} %{response_code} %{num_connects} %{size_download}\\n"));
        for (int kb = 1; kb <= 8; kb++) {
            command.addAll(List.of("-o", "/dev/null", uri(httpPort(side), "/samples/size?kb=" + kb).toString()));
        }
        List<String> lines = run(command.toArray(String[]::new)).lines().collect(Collectors.toList());
        assertEquals(8, lines.size(), side + ": " + lines);
        int connects = 0;
        List<Integer> sizes = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.trim().split(" ");
            assertEquals("2", f[0], side + ": " + line);
            assertEquals("200", f[1], side + ": " + line);
            connects += Integer.parseInt(f[2]);
            sizes.add(Integer.parseInt(f[3]));
        }
        assertEquals(1, connects, side + ": eight parallel transfers were not multiplexed on one connection: " + lines);
        assertEquals(IntStream.rangeClosed(1, 8).map(kb -> kb * 1024).boxed().collect(Collectors.toSet()),
                Set.copyOf(sizes), side + ": " + lines);
    }

    // ------------------------------------------------------------------ AJP/1.3

    /** What mod_proxy_ajp sends, from our own client: on one reused connection, GETs, a POST body in chunks, a JSP. */
    @ParameterizedTest
    @EnumSource(Side.class)
    @Order(5)
    void ajpForwardsRequestsWithTheSecretAndRefusesOthers(Side side) throws Exception {
        try (AjpClient ajp = new AjpClient(ajpPort(side), SECRET)) {
            AjpClient.Response size = ajp.get("/samples/size?kb=100");
            assertEquals(200, size.status(), side + ": " + size.headers());
            assertEquals(102400, size.body().length, side.toString());
            assertEquals("102400", size.headers().get("content-length"), side + ": " + size.headers());
            assertTrue(size.reuse(), side + ": connection not kept after /size");

            byte[] body = new byte[50 * 1024 + 7];
            new Random(7).nextBytes(body);
            AjpClient.Response echo = ajp.send("POST", "/samples/echo", Map.of("content-type",
                    "application/octet-stream"), body);
            assertEquals(200, echo.status(), side.toString());
            assertArrayEquals(body, echo.body(), side + ": 50 KB POST body echoed through AJP");
            assertTrue(echo.reuse(), side + ": connection not kept after the POST");

            AjpClient.Response el = ajp.get("/examples/jsp/jsp2/el/basic-arithmetic.jsp");
            assertEquals(200, el.status(), side.toString());
            assertTrue(el.text().contains("<td>3</td>") && el.text().contains("<td>3.5</td>"), side + ": " + el.text());

            AjpClient.Response form = ajp.send("POST", "/examples/servlets/servlet/RequestParamExample",
                    Map.of("content-type", "application/x-www-form-urlencoded"),
                    "firstname=Ada&lastname=Lovelace".getBytes(StandardCharsets.US_ASCII));
            assertEquals(200, form.status(), side.toString());
            assertTrue(form.text().contains("= Ada") && form.text().contains("= Lovelace"), side + ": " + form.text());
            assertTrue(form.reuse(), side + ": connection not kept after the form");
        }
        for (String secret : Arrays.asList(WRONG_SECRET, null)) {
            try (AjpClient ajp = new AjpClient(ajpPort(side), secret)) {
                assertEquals(403, ajp.get("/samples/size?kb=1").status(), side + ": secret " + secret);
            }
        }
    }

    /**
     * HTTPS with {@code <SSLHostConfig>} as operators configure it, on stock NIO and ours: over HTTP/1.1 and over
     * HTTP/2 chosen by ALPN, a 100 KB response and a 1 MB body echoed, and a docs page larger than the socket buffers.
     */
    @ParameterizedTest
    @EnumSource(Side.class)
    @Order(6)
    void httpsServesHttp11AndHttp2ByAlpn(Side side) throws Exception {
        int port = side == Side.OURS ? tomcat.hybridTlsPort : tomcat.nioTlsPort;
        byte[] body = new byte[1 << 20];
        new Random(23).nextBytes(body);
        byte[] changelog = Files.readAllBytes(tomcat.home.resolve("webapps/docs/changelog.html"));
        for (HttpClient.Version version : HttpClient.Version.values()) {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).version(version)
                    .sslContext(tls.clientContext(null)).build();
            URI base = URI.create("https://localhost:" + port);
            HttpResponse<byte[]> size = client.send(request(base.resolve("/samples/size?kb=100")),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, size.statusCode(), side + " " + version);
            assertEquals(version, size.version(), side + ": ALPN did not give " + version);
            assertEquals(102400, size.body().length, side + " " + version);
            HttpResponse<byte[]> echo = client.send(HttpRequest.newBuilder(base.resolve("/samples/echo"))
                    .timeout(Duration.ofSeconds(TIMEOUT_SECONDS)).POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, echo.statusCode(), side + " " + version);
            assertArrayEquals(body, echo.body(), side + " " + version + ": the 1 MB echo differs");
            HttpResponse<byte[]> docs = client.send(request(base.resolve("/docs/changelog.html")),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertArrayEquals(changelog, docs.body(), side + " " + version + ": changelog.html differs");
        }
    }

    /** Apache httpd with mod_proxy_ajp in front, as operators run it: the samples WAR and the examples pages. */
    @ParameterizedTest
    @EnumSource(Side.class)
    @Order(6)
    void httpdInFrontServesSamplesAndExamplesThroughAjp(Side side) throws Exception {
        assumeTrue(httpd != null, "Apache httpd with mod_proxy_ajp not available (" + httpdUnavailable +
                "): AJP tested with the hand-written client only");
        int port = httpd.port(route(side, SECRET));

        HttpResponse<byte[]> size = http1.send(request(uri(port, "/samples/size?kb=100")),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, size.statusCode(), side + ": " + httpd.logs());
        assertEquals(102400, size.body().length, side.toString());

        assertEquals("Hello JSP 42", getText(uri(port, "/samples/hello.jsp")).body().trim(), side.toString());

        byte[] body = new byte[50 * 1024 + 7];
        new Random(11).nextBytes(body);
        HttpResponse<byte[]> echo = http1.send(HttpRequest.newBuilder(uri(port, "/samples/echo"))
                .timeout(Duration.ofSeconds(TIMEOUT_SECONDS)).POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, echo.statusCode(), side.toString());
        assertArrayEquals(body, echo.body(), side + ": 50 KB POST body through httpd and AJP");

        HttpResponse<String> hello = getText(uri(port, "/examples/servlets/servlet/HelloWorldExample"));
        assertEquals(200, hello.statusCode(), side.toString());
        assertTrue(hello.body().contains("<h1>Hello World!</h1>"), side + ": " + hello.body());

        HttpResponse<String> params = http1.send(HttpRequest.newBuilder(
                uri(port, "/examples/servlets/servlet/RequestParamExample")).timeout(Duration.ofSeconds(TIMEOUT_SECONDS))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("firstname=Ada&lastname=Lovelace")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, params.statusCode(), side.toString());
        assertTrue(params.body().contains("= Ada") && params.body().contains("= Lovelace"), side + ": " + params.body());

        HttpResponse<String> set = getText(uri(port, "/examples/servlets/servlet/SessionExample?dataname=colour&datavalue=teal"));
        assertEquals(200, set.statusCode(), side.toString());
        String cookie = set.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        HttpResponse<String> again = http1.send(HttpRequest.newBuilder(uri(port, "/examples/servlets/servlet/SessionExample"))
                .timeout(Duration.ofSeconds(TIMEOUT_SECONDS)).header("Cookie", cookie).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(again.body().contains("colour = teal"), side + ": " + again.body());

        HttpResponse<String> el = getText(uri(port, "/examples/jsp/jsp2/el/basic-arithmetic.jsp"));
        assertEquals(200, el.statusCode(), side.toString());
        assertTrue(el.body().contains("<td>3.5</td>"), side + ": " + el.body());

        int wrongSecretPort = httpd.port(route(side, WRONG_SECRET));
        assertEquals(403, getText(uri(wrongSecretPort, "/samples/size?kb=1")).statusCode(),
                side + ": httpd with the wrong secret");
    }

    private List<PrivateHttpd.Route> routes() {
        List<PrivateHttpd.Route> routes = new ArrayList<>();
        for (Side side : Side.values()) {
            routes.add(route(side, SECRET));
            routes.add(route(side, WRONG_SECRET));
        }
        return routes;
    }

    private PrivateHttpd.Route route(Side side, String secret) {
        return new PrivateHttpd.Route(side + (secret.equals(SECRET) ? "" : " (wrong secret)"), ajpPort(side), secret);
    }

    // ------------------------------------------------------------------ stop

    @Test
    @Order(Integer.MAX_VALUE)
    void stopsCleanly() throws Exception {
        boolean exitedByItself = tomcat.stop();
        String log = tomcat.catalinaOut();
        assertTrue(exitedByItself, "Tomcat did not exit within its stop timeout and was killed:\n" + log);
        assertEquals(0, tomcat.exitValue(), log);
        List<String> ours = tomcat.severeRecords().stream().filter(r -> r.contains("io.hybridconnector"))
                .collect(Collectors.toList());
        assertTrue(ours.isEmpty(), "SEVERE from our classes in catalina.out:\n" + String.join("\n", ours));
    }

    // ------------------------------------------------------------------ helpers

    private int httpPort(Side side) {
        return side == Side.OURS ? tomcat.hybridPort : tomcat.nioPort;
    }

    private int ajpPort(Side side) {
        return side == Side.OURS ? tomcat.hybridAjpPort : tomcat.nioAjpPort;
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static HttpRequest request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(TIMEOUT_SECONDS)).build();
    }

    private HttpResponse<String> getText(URI uri) throws IOException, InterruptedException {
        return http1.send(request(uri), HttpResponse.BodyHandlers.ofString());
    }

    private static Path onPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .map(dir -> Path.of(dir, program)).filter(Files::isExecutable).findFirst().orElse(null);
    }

    /** Runs a command to its end (at most {@link #TIMEOUT_SECONDS}) and returns its standard output. */
    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.PIPE).start();
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getErrorStream().readAllBytes();
            } catch (IOException e) {
                return e.toString().getBytes(StandardCharsets.UTF_8);
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within " + TIMEOUT_SECONDS + " s");
        }
        String stderr = new String(err.join(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), String.join(" ", command) + "\nstdout: " + out + "\nstderr: " + stderr);
        return out;
    }
}
