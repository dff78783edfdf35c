package io.hybridconnector.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What an operator does with a real distribution, checked through our connector: copy the jar into {@code lib/},
 * use the example server.xml (ours beside stock NIO), drop the samples WAR into {@code webapps/}, start
 * {@code bin/catalina.sh}, use the samples and the bundled {@code examples} webapp (servlets and JSP), stop.
 * <p>
 * One Tomcat per subclass (one per Tomcat line), started once for all its tests; the last test stops it and checks
 * the shutdown. {@link #killIfStillRunning} makes sure that no Tomcat outlives a failed test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class DistributionTestBase {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    private TomcatDistribution tomcat;

    /** The name of the system property that holds this class's Tomcat version. */
    abstract String versionProperty();

    @BeforeAll
    void startTomcat() throws Exception {
        String version = System.getProperty(versionProperty());
        assertNotNull(version, "system property " + versionProperty() + " not set (run through Maven)");
        tomcat = new TomcatDistribution(version);
        tomcat.install();
        tomcat.start();
    }

    @AfterAll
    void killIfStillRunning() throws InterruptedException {
        if (tomcat != null) {
            tomcat.kill();
        }
    }

    @Test
    @Order(1)
    void startupLogShowsOurConnectorWithItsEffectiveSettings() {
        String log = tomcat.catalinaOut();
        assertTrue(log.contains("Server version number: " + tomcat.version), log);
        assertTrue(log.contains("HybridHttp11Protocol [" + tomcat.hybridName() + "] threads="),
                "no effective-settings line of our connector in catalina.out:\n" + log);
        assertTrue(log.contains("Starting ProtocolHandler [" + tomcat.hybridName() + "]"), log);
    }

    /** The papers' three sizes, twice each, on one connection: every response keeps it open for the next. */
    @Test
    @Order(2)
    void samplesServeEverySizeOnOneKeepAliveConnection() throws IOException {
        try (KeepAliveClient client = new KeepAliveClient(tomcat.hybridPort)) {
            for (int round = 0; round < 2; round++) {
                for (String kb : List.of("0.1", "10", "100")) {
                    KeepAliveClient.Response r = client.get("/samples/size?kb=" + kb);
                    int expected = (int) Math.round(Double.parseDouble(kb) * 1024);
                    assertEquals(200, r.status(), kb + " KB");
                    assertEquals(String.valueOf(expected), r.headers().get("content-length"), kb + " KB");
                    assertEquals(expected, r.body().length, kb + " KB");
                    assertTrue(r.text().chars().allMatch(Character::isLetterOrDigit), kb + " KB: not alphanumeric");
                    assertFalse("close".equalsIgnoreCase(r.headers().get("connection")),
                            kb + " KB: the server closed the keep-alive connection: " + r.headers());
                }
            }
        }
    }

    @Test
    @Order(3)
    void samplesJspCompilesAndRuns() throws Exception {
        HttpResponse<String> r = get(ours("/samples/hello.jsp"));
        assertEquals(200, r.statusCode());
        assertEquals("Hello JSP 42", r.body().trim());
    }

    @Test
    @Order(4)
    void examplesServletsAnswer() throws Exception {
        HttpResponse<String> hello = get(ours("/examples/servlets/servlet/HelloWorldExample"));
        assertEquals(200, hello.statusCode());
        assertTrue(hello.body().contains("<h1>Hello World!</h1>"), hello.body());

        // A form POST: the request body is read through our connector and parsed by Tomcat.
        HttpResponse<String> params = http.send(HttpRequest.newBuilder(ours("/examples/servlets/servlet/RequestParamExample"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("firstname=Ada&lastname=Lovelace")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, params.statusCode());
        assertTrue(params.body().contains("= Ada") && params.body().contains("= Lovelace"), params.body());

        // A session: the cookie set by the first response brings the attribute back in the second.
        HttpResponse<String> set = get(ours("/examples/servlets/servlet/SessionExample?dataname=colour&datavalue=teal"));
        assertEquals(200, set.statusCode());
        String cookie = set.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        assertTrue(cookie.startsWith("JSESSIONID="), cookie);
        HttpResponse<String> again = get(ours("/examples/servlets/servlet/SessionExample"), "Cookie", cookie,
                Duration.ofSeconds(20));
        assertEquals(200, again.statusCode());
        assertTrue(again.body().contains("colour = teal"), again.body());
    }

    @Test
    @Order(5)
    void examplesJspPagesAnswer() throws Exception {
        HttpResponse<String> el = get(ours("/examples/jsp/jsp2/el/basic-arithmetic.jsp"));
        assertEquals(200, el.statusCode());
        assertTrue(el.body().contains("Basic Arithmetic"), el.body());
        // ${1 + 2} and ${1.2 + 2.3} evaluated by Jasper's EL, not echoed
        assertTrue(el.body().contains("<td>3</td>") && el.body().contains("<td>3.5</td>"), el.body());

        HttpResponse<String> date = get(ours("/examples/jsp/dates/date.jsp"));
        assertEquals(200, date.statusCode());
        // a bean from the webapp's classes, read through <jsp:getProperty>
        assertTrue(java.util.regex.Pattern.compile("Year: is\\s+\\d{4}").matcher(date.body()).find(), date.body());
    }

    /** Tomcat's async examples: the request leaves the container thread and completes from another one. */
    @Test
    @Order(7)
    void examplesAsyncAndNonBlockingAnswer() throws Exception {
        HttpResponse<String> async0 = get(ours("/examples/async/async0"));
        assertEquals(200, async0.statusCode());
        assertTrue(async0.body().startsWith("Async dispatch worked: "), async0.body());
        HttpResponse<String> async2 = get(ours("/examples/async/async2"));
        assertEquals(200, async2.statusCode());
        assertTrue(async2.body().contains("Output from background thread"), async2.body());

        // Servlet 3.1 non-blocking read: a ReadListener counts the bytes of the body
        byte[] body = new byte[300_000];
        java.util.Arrays.fill(body, (byte) 'x');
        HttpResponse<String> count = http.send(HttpRequest.newBuilder(ours("/examples/servlets/nonblocking/bytecounter"))
                .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, count.statusCode());
        assertTrue(count.body().contains("Total bytes written = [300000]"), count.body());
    }

    /** The manager webapp lists and reloads applications through our connector (its text interface, basic auth). */
    @Test
    @Order(8)
    void managerListsAndReloadsApplications() throws Exception {
        String auth = "Basic " + java.util.Base64.getEncoder().encodeToString(
                (TomcatDistribution.MANAGER_USER + ":" + TomcatDistribution.MANAGER_PASSWORD).getBytes());
        HttpResponse<String> denied = get(ours("/manager/text/list"));
        assertEquals(401, denied.statusCode());
        HttpResponse<String> list = get(ours("/manager/text/list"), "Authorization", auth, Duration.ofSeconds(20));
        assertEquals(200, list.statusCode());
        assertTrue(list.body().startsWith("OK - Listed applications"), list.body());
        assertTrue(list.body().contains("/samples:running"), list.body());
        HttpResponse<String> reload = get(ours("/manager/text/reload?path=/examples"), "Authorization", auth,
                Duration.ofSeconds(60));
        assertTrue(reload.body().startsWith("OK - Reloaded application at context path [/examples]"), reload.body());
        assertEquals(200, get(ours("/examples/servlets/servlet/HelloWorldExample")).statusCode());
    }

    /** The docs webapp: static pages of all sizes (large ones leave by sendfile). */
    @Test
    @Order(9)
    void docsPagesAnswer() throws Exception {
        HttpResponse<String> index = get(ours("/docs/index.html"));
        assertEquals(200, index.statusCode());
        assertTrue(index.body().contains("Documentation Index"), index.body().substring(0, 200));
        HttpResponse<String> changelog = get(ours("/docs/changelog.html"));
        assertEquals(200, changelog.statusCode());
        long length = java.nio.file.Files.size(tomcat.home.resolve("webapps/docs/changelog.html"));
        assertEquals(length, changelog.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }

    /** The example server.xml keeps stock NIO on a second port: the same WAR answers there too. */
    @Test
    @Order(10)
    void stockNioBesideOursServesTheSameWar() throws Exception {
        HttpResponse<String> r = get(URI.create("http://127.0.0.1:" + tomcat.nioPort + "/samples/size?kb=10"));
        assertEquals(200, r.statusCode());
        assertEquals(10240, r.body().length());
    }

    /**
     * Every file of the bundled {@code examples} and {@code docs} applications (pages, JSPs, images, fonts) and every
     * exact servlet mapping of {@code examples/WEB-INF/web.xml}, fetched from stock NIO and from ours: the same status
     * and content type everywhere, and for every static file whether the body is the file's bytes (on both, unless a
     * security constraint answers with its login form instead). Dynamic pages (a date, a session id, the port) are
     * compared by status and type only, and {@code jsp/forward/forward.jsp} by status only: it forwards to a JSP or to
     * a static page depending on the JVM's free memory. An answer that does not complete in 10 s (a streaming servlet)
     * counts as the answer "timeout", which must then be stock's too.
     */
    @Test
    @Order(11)
    void everyExamplesAndDocsUrlAnswersAsOnStock() throws Exception {
        List<String> paths = new ArrayList<>();
        for (String app : List.of("examples", "docs")) {
            Path root = tomcat.home.resolve("webapps").resolve(app);
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(Files::isRegularFile).map(f -> root.relativize(f).toString().replace('\\', '/'))
                        .filter(f -> !f.startsWith("WEB-INF/") && !f.startsWith("META-INF/"))
                        .sorted().forEach(f -> paths.add("/" + app + "/" + f));
            }
        }
        Matcher mapping = Pattern.compile("<url-pattern>(/[^*<]*)</url-pattern>")
                .matcher(Files.readString(tomcat.home.resolve("webapps/examples/WEB-INF/web.xml")));
        while (mapping.find()) {
            paths.add("/examples" + mapping.group(1));
        }
        List<String> differences = new ArrayList<>();
        for (String path : paths) {
            boolean dynamic = !path.contains(".") || path.endsWith(".jsp") || path.endsWith(".jspx")
                    || path.endsWith(".xhtml");
            Path file = dynamic ? null : tomcat.home.resolve("webapps" + path);
            boolean typeVaries = path.endsWith("/forward/forward.jsp");
            String stock = answer(URI.create("http://127.0.0.1:" + tomcat.nioPort + path), file, typeVaries);
            String ours = answer(ours(path), file, typeVaries);
            if (!stock.equals(ours)) {
                differences.add(path + ": stock " + stock + ", ours " + ours);
            }
        }
        System.out.printf("Tomcat %s: %d examples and docs URLs, %d answered differently %s%n", tomcat.version,
                paths.size(), differences.size(), differences);
        assertTrue(paths.size() > 250, "only " + paths.size() + " URLs found");
        assertEquals(List.of(), differences);
    }

    /** Status, content type (unless it varies) and whether the body is {@code file}'s bytes; or "timeout". */
    private String answer(URI uri, Path file, boolean typeVaries) throws IOException, InterruptedException {
        HttpResponse<byte[]> r;
        try {
            r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            return "timeout";
        }
        String type = typeVaries ? "" : " " + r.headers().firstValue("Content-Type").orElse("no type");
        return r.statusCode() + type + (file == null ? ""
                : Arrays.equals(Files.readAllBytes(file), r.body()) ? ", the file" : ", not the file");
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void stopsCleanly() throws Exception {
        boolean exitedByItself = tomcat.stop();
        String log = tomcat.catalinaOut();
        assertTrue(exitedByItself, "Tomcat did not exit within its stop timeout and was killed:\n" + log);
        assertEquals(0, tomcat.exitValue(), log);
        assertTrue(log.contains("Stopping ProtocolHandler [" + tomcat.hybridName() + "]"), log);
        assertTrue(log.contains("Destroying ProtocolHandler [" + tomcat.hybridName() + "]"), log);
        List<String> ours = tomcat.severeRecords().stream().filter(r -> r.contains("io.hybridconnector"))
                .collect(Collectors.toList());
        assertTrue(ours.isEmpty(), "SEVERE from our classes in catalina.out:\n" + String.join("\n", ours));
    }

    private URI ours(String path) {
        return URI.create("http://127.0.0.1:" + tomcat.hybridPort + path);
    }

    private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A GET with one request header (a cookie, credentials), answered within {@code timeout}. */
    private HttpResponse<String> get(URI uri, String header, String value, Duration timeout)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).timeout(timeout).header(header, value).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
