package io.hybridconnector.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What an operator does, on real distributions: copy the jar into {@code lib/}, use the example server.xml (our
 * connector beside stock NIO), drop the WAR into {@code webapps/}, start {@code bin/catalina.sh}, use the samples and
 * the bundled {@code examples} webapp (servlets and JSP) through our connector, stop cleanly.
 */
class DistributionTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @ParameterizedTest
    @ValueSource(strings = { "tomcat10.version", "tomcat11.version" })
    void distributionServesThroughOurConnector(String versionProperty) throws Exception {
        String version = System.getProperty(versionProperty);
        String line = version.startsWith("10.") ? "tomcat-10.1" : "tomcat-11.0";
        Path home = Path.of(System.getProperty("dist.dir"), "apache-tomcat-" + version);
        Path artifacts = Path.of(System.getProperty("artifacts.dir"));
        assertTrue(Files.isDirectory(home), "distribution not unpacked at " + home);

        Files.copy(artifacts.resolve("hybrid-connector.jar"), home.resolve("lib/hybrid-connector.jar"),
                StandardCopyOption.REPLACE_EXISTING);
        Files.copy(artifacts.resolve("samples.war"), home.resolve("webapps/samples.war"),
                StandardCopyOption.REPLACE_EXISTING);
        int shutdownPort = freePort();
        int oursPort = freePort();
        int nioPort = freePort();
        String serverXml;
        try (InputStream in = getClass().getResourceAsStream("/config-examples/" + line + "/server.xml")) {
            serverXml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        serverXml = serverXml.replace("port=\"8005\"", "port=\"" + shutdownPort + "\"")
                .replace("port=\"8080\"", "port=\"" + oursPort + "\"")
                .replace("port=\"8081\"", "port=\"" + nioPort + "\"");
        Files.writeString(home.resolve("conf/server.xml"), serverXml);
        Path logs = home.resolve("logs");
        deleteContents(logs);

        Process tomcat = catalina(home, "run").redirectErrorStream(true)
                .redirectOutput(logs.resolve("console.out").toFile()).start();
        try {
            String base = "http://127.0.0.1:" + oursPort;
            awaitUp(base + "/samples/size?kb=0.1", tomcat, logs);

            HttpResponse<String> size = get(base + "/samples/size?kb=10");
            assertEquals(200, size.statusCode());
            assertEquals(10240, size.body().length());
            assertEquals("Hello JSP 42", get(base + "/samples/hello.jsp").body().trim());
            HttpResponse<String> hello = get(base + "/examples/servlets/servlet/HelloWorldExample");
            assertEquals(200, hello.statusCode());
            assertTrue(hello.body().contains("Hello World!"), hello.body());
            HttpResponse<String> jsp = get(base + "/examples/jsp/jsp2/el/basic-arithmetic.jsp");
            assertEquals(200, jsp.statusCode());
            assertTrue(jsp.body().contains("Basic Arithmetic"), jsp.body());
            HttpResponse<String> stock = get("http://127.0.0.1:" + nioPort + "/samples/size?kb=0.1");
            assertEquals(200, stock.statusCode());

            String log = readLogs(logs);
            assertTrue(log.contains("HybridHttp11Protocol [\"http-hybrid-" + oursPort + "\"] threads="), log);
        } finally {
            Process stop = catalina(home, "stop").redirectErrorStream(true)
                    .redirectOutput(logs.resolve("stop.out").toFile()).start();
            stop.waitFor(60, TimeUnit.SECONDS);
            boolean exited = tomcat.waitFor(60, TimeUnit.SECONDS);
            if (!exited) {
                tomcat.destroyForcibly();
            }
            assertTrue(exited, "Tomcat did not stop within 60 s:\n" + readLogs(logs));
        }
        String log = readLogs(logs);
        assertTrue(!log.contains("SEVERE") || !log.contains("io.hybridconnector"), log);
    }

    private static ProcessBuilder catalina(Path home, String command) {
        ProcessBuilder pb = new ProcessBuilder("bash", home.resolve("bin/catalina.sh").toString(), command);
        pb.environment().put("CATALINA_HOME", home.toString());
        pb.environment().put("CATALINA_BASE", home.toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("CATALINA_OPTS");
        pb.environment().put("JAVA_OPTS", "-Xmx512m");
        return pb;
    }

    private static void awaitUp(String url, Process tomcat, Path logs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (!tomcat.isAlive()) {
                throw new AssertionError("Tomcat exited:\n" + readLogs(logs));
            }
            try {
                if (get(url).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            Thread.sleep(250);
        }
        throw new AssertionError("Tomcat did not answer " + url + " within 90 s:\n" + readLogs(logs));
    }

    private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String readLogs(Path logs) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.list(logs)) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                sb.append("==== ").append(p.getFileName()).append('\n')
                        .append(Files.readString(p, StandardCharsets.ISO_8859_1));
            }
        }
        return sb.toString();
    }

    private static void deleteContents(Path dir) throws IOException {
        Files.createDirectories(dir);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
