package io.hybridconnector.bench.server;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Tomcat distribution started with {@code bin/catalina.sh run}: a fresh {@code CATALINA_BASE} with our jar in
 * {@code lib/}, the samples WAR in {@code webapps/} and a server.xml with two connectors, stock NIO and ours. Used
 * from one thread (the harness's main thread).
 */
public final class TomcatServer implements AutoCloseable {

    public static final String STOCK_PROTOCOL = "org.apache.coyote.http11.Http11NioProtocol";
    public static final String OUR_PROTOCOL = "io.hybridconnector.HybridHttp11Protocol";

    /** What to start. {@code extra*Attributes} are added verbatim to that Connector element. */
    public record Config(Path catalinaHome, Path connectorJar, Path samplesWar, Path base, Path javaHome,
            List<String> jvmOptions, String extraStockAttributes, String extraOurAttributes, Pinning pinning) {
    }

    private final Config config;
    private final int shutdownPort;
    private final int stockPort;
    private final int ourPort;
    private Process process;
    private Thread shutdownHook;

    public TomcatServer(Config config) throws IOException {
        this.config = config;
        this.shutdownPort = freePort();
        this.stockPort = freePort();
        this.ourPort = freePort();
    }

    public int stockPort() {
        return stockPort;
    }

    public int ourPort() {
        return ourPort;
    }

    public long pid() {
        return process.pid();
    }

    public Path base() {
        return config.base();
    }

    /**
     * How the Tomcat JVM ended, once {@link #close} returned: 0 after a clean stop; 137 when it had to be killed
     * (it did not exit within 30 s of {@code catalina.sh stop}, e.g. a non-daemon thread left running). The
     * reliability suite's graceful-stop scenario reads it.
     */
    public int exitValue() {
        return process.exitValue();
    }

    /** Lays out CATALINA_BASE, starts Tomcat and waits until both connectors serve {@code readyPath}. */
    public void start(String readyPath, Duration timeout) throws IOException, InterruptedException {
        prepareBase();
        List<String> cmd = new ArrayList<>(config.pinning().serverPrefix());
        cmd.add("bash");
        cmd.add(config.catalinaHome().resolve("bin/catalina.sh").toString());
        cmd.add("run");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(config.base().resolve("logs/console.out").toFile());
        pb.environment().put("CATALINA_HOME", config.catalinaHome().toString());
        pb.environment().put("CATALINA_BASE", config.base().toString());
        pb.environment().put("JAVA_HOME", config.javaHome().toString());
        pb.environment().put("JAVA_OPTS", String.join(" ", config.jvmOptions()));
        pb.environment().remove("CATALINA_OPTS");
        pb.environment().remove("JRE_HOME");
        pb.environment().remove("CATALINA_PID");
        process = pb.start();
        shutdownHook = new Thread(() -> process.destroyForcibly(), "stop-tomcat");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        awaitReady(readyPath, timeout);
        String exe = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid()), "exe")).toString();
        if (!exe.endsWith("/java")) {
            // catalina.sh run and taskset both exec, so the started process must be the JVM itself
            throw new IOException("process " + pid() + " is " + exe + ", not the Tomcat JVM");
        }
    }

    /** Stops with {@code catalina.sh stop} (the shutdown port), then forcibly after 30 s. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            return;
        }
        ProcessBuilder pb = new ProcessBuilder("bash", config.catalinaHome().resolve("bin/catalina.sh").toString(),
                "stop").redirectErrorStream(true).redirectOutput(config.base().resolve("logs/stop.out").toFile());
        pb.environment().put("CATALINA_HOME", config.catalinaHome().toString());
        pb.environment().put("CATALINA_BASE", config.base().toString());
        pb.environment().put("JAVA_HOME", config.javaHome().toString());
        pb.environment().remove("JAVA_OPTS");
        pb.environment().remove("CATALINA_OPTS");
        pb.start().waitFor(30, TimeUnit.SECONDS);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
    }

    /** The started JVM's flags and version, as {@code jcmd} reports them. */
    public String jcmd(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(config.javaHome().resolve("bin/jcmd").toString(), Long.toString(pid()), command)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    /** Everything Tomcat logged so far (console and log files). */
    public String logs() throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> files = Files.list(config.base().resolve("logs"))) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                sb.append("==== ").append(p.getFileName()).append('\n')
                        .append(Files.readString(p, StandardCharsets.ISO_8859_1));
            }
        }
        return sb.toString();
    }

    String serverXml() {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by it-tests/bench: stock NIO and ours side by side, no access log (per-request file I/O
                     would be measured too), no auto-deploy (a background scan every 10 s). -->
                <Server port="%d" shutdown="SHUTDOWN">
                  <Listener className="org.apache.catalina.startup.VersionLoggerListener" />
                  <Listener className="org.apache.catalina.core.JreMemoryLeakPreventionListener" />
                  <Listener className="org.apache.catalina.core.ThreadLocalLeakPreventionListener" />
                  <Service name="Catalina">
                    <!-- Stock: the settings of shared/anchors/baseline-stock-connectors.md. -->
                    <Connector port="%d" address="127.0.0.1" protocol="%s" %s
                               maxKeepAliveRequests="-1" acceptCount="1024" %s/>
                    <Connector port="%d" address="127.0.0.1" protocol="%s" %s
                               acceptCount="1024" %s/>
                    <Engine name="Catalina" defaultHost="localhost">
                      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="false" />
                    </Engine>
                  </Service>
                </Server>
                """.formatted(shutdownPort, stockPort, STOCK_PROTOCOL, defaultTimeout(config.extraStockAttributes()),
                config.extraStockAttributes(), ourPort, OUR_PROTOCOL, defaultTimeout(config.extraOurAttributes()),
                config.extraOurAttributes());
    }

    /** connectionTimeout="20000" unless the extra attributes set it (an XML attribute may appear only once). */
    private static String defaultTimeout(String extraAttributes) {
        return extraAttributes.contains("connectionTimeout=") ? "" : "connectionTimeout=\"20000\"";
    }

    private void prepareBase() throws IOException {
        Path base = config.base();
        deleteTree(base);
        for (String dir : List.of("conf", "lib", "logs", "temp", "webapps", "work")) {
            Files.createDirectories(base.resolve(dir));
        }
        // Whatever the distribution ships (11.0 has no catalina.policy any more); server.xml is ours.
        try (Stream<Path> files = Files.list(config.catalinaHome().resolve("conf"))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(file)) {
                    Files.copy(file, base.resolve("conf").resolve(file.getFileName()));
                }
            }
        }
        Files.writeString(base.resolve("conf/server.xml"), serverXml()); // replaces the distribution's
        Files.copy(config.connectorJar(), base.resolve("lib/hybrid-connector.jar"),
                StandardCopyOption.REPLACE_EXISTING);
        Files.copy(config.samplesWar(), base.resolve("webapps/samples.war"), StandardCopyOption.REPLACE_EXISTING);
    }

    private void awaitReady(String path, Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int port : new int[] { stockPort, ourPort }) {
            URI uri = URI.create("http://127.0.0.1:" + port + path);
            while (true) {
                if (!process.isAlive()) {
                    throw new IOException("Tomcat exited with " + process.exitValue() + ":\n" + logs());
                }
                try {
                    HttpResponse<Void> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                            .build(), HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        break;
                    }
                } catch (IOException notYet) {
                    // still starting
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("Tomcat did not answer " + uri + " within " + timeout + ":\n" + logs());
                }
                Thread.sleep(200);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
