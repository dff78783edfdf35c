package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One Tomcat of the 3-tier mode: a real distribution ({@code CATALINA_HOME}, unpacked from Maven Central) run with
 * {@code bin/catalina.sh run} on a fresh {@code CATALINA_BASE} that holds the distribution's conf files, a server.xml
 * with one HTTP connector (stock NIO or ours), our jar and the MariaDB driver in {@code lib/}, and the RUBBoS WAR,
 * unchanged, as {@code webapps/rubbos.war}. {@code taskset} and {@code catalina.sh run} both exec, so the started
 * process is the Tomcat JVM itself. Created, started and closed by the runner's main thread.
 */
final class TomcatInstance implements AutoCloseable {

    /** What to start. {@code attributes} are added to the Connector element (server.xml names and meanings). */
    record Spec(Path catalinaHome, Path base, ConnectorChoice connector, Map<String, String> attributes, int port,
                Path war, List<Path> libJars, List<String> jvmOptions, String cpus) {
    }

    private final Spec spec;
    private Process process;

    private TomcatInstance(Spec spec) {
        this.spec = spec;
    }

    /** Lays out CATALINA_BASE, starts Tomcat and waits until the WAR answers on its connector. */
    static TomcatInstance start(Spec spec, Duration timeout) throws IOException, InterruptedException {
        TomcatInstance t = new TomcatInstance(spec);
        t.prepareBase();
        List<String> command = new ArrayList<>();
        if (spec.cpus() != null) {
            command.addAll(List.of("taskset", "-c", spec.cpus()));
        }
        command.addAll(List.of("bash", spec.catalinaHome().resolve("bin/catalina.sh").toString(), "run"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(spec.base().resolve("logs/console.out").toFile());
        pb.environment().put("CATALINA_HOME", spec.catalinaHome().toString());
        pb.environment().put("CATALINA_BASE", spec.base().toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("JAVA_OPTS", String.join(" ", spec.jvmOptions()));
        for (String inherited : List.of("CATALINA_OPTS", "JRE_HOME", "CATALINA_PID", "CLASSPATH")) {
            pb.environment().remove(inherited);
        }
        t.process = pb.start();
        try {
            t.awaitReady(timeout);
        } catch (IOException | InterruptedException e) {
            t.close();
            throw e;
        }
        return t;
    }

    long pid() {
        return process.pid();
    }

    int port() {
        return spec.port();
    }

    /** @return the Connector element as written to server.xml, for the report */
    String connectorElement() {
        String extra = spec.attributes().entrySet().stream()
                .map(e -> e.getKey() + "=\"" + xml(e.getValue()) + "\"").collect(Collectors.joining(" "));
        return "<Connector port=\"" + spec.port() + "\" address=\"127.0.0.1\" protocol=\"" + spec.connector().protocol
                + "\" connectionTimeout=\"20000\" maxKeepAliveRequests=\"-1\" acceptCount=\"1024\" " + extra + "/>";
    }

    String serverXml() {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by the RUBBoS 3-tier runner: one HTTP connector behind Apache httpd, no shutdown port (the
                     runner stops Tomcat with SIGTERM), no access log (it would be measured too), no auto-deploy. -->
                <Server port="-1" shutdown="SHUTDOWN">
                  <Listener className="org.apache.catalina.startup.VersionLoggerListener" />
                  <Listener className="org.apache.catalina.core.JreMemoryLeakPreventionListener" />
                  <Listener className="org.apache.catalina.core.ThreadLocalLeakPreventionListener" />
                  <Service name="Catalina">
                    %s
                    <Engine name="Catalina" defaultHost="localhost">
                      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="false" />
                    </Engine>
                  </Service>
                </Server>
                """.formatted(connectorElement());
    }

    /** SIGTERM (Tomcat's shutdown hook stops it gracefully), then SIGKILL after 20 s. */
    @Override
    public void close() throws InterruptedException {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void prepareBase() throws IOException {
        Path base = spec.base();
        deleteTree(base);
        for (String dir : List.of("conf", "lib", "logs", "temp", "webapps", "work")) {
            Files.createDirectories(base.resolve(dir));
        }
        try (Stream<Path> files = Files.list(spec.catalinaHome().resolve("conf"))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(file)) {
                    Files.copy(file, base.resolve("conf").resolve(file.getFileName()));
                }
            }
        }
        Files.writeString(base.resolve("conf/server.xml"), serverXml());
        for (Path jar : spec.libJars()) {
            Files.copy(jar, base.resolve("lib").resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
        Files.copy(spec.war(), base.resolve("webapps/rubbos.war"), StandardCopyOption.REPLACE_EXISTING);
    }

    private void awaitReady(Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI uri = URI.create("http://127.0.0.1:" + spec.port() + "/rubbos/servlet/StoriesOfTheDay");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("Tomcat exited with " + process.exitValue() + "; see " + spec.base()
                        + "/logs");
            }
            try {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
                if (r.statusCode() >= 500) {
                    throw new IOException(uri + " answered " + r.statusCode() + " (is the database loaded and "
                            + "reachable?); see " + spec.base() + "/logs");
                }
            } catch (IOException notYet) {
                if (notYet.getMessage() != null && notYet.getMessage().contains("answered")) {
                    throw notYet;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("Tomcat did not serve " + uri + " within " + timeout + "; see " + spec.base()
                        + "/logs");
            }
            Thread.sleep(250);
        }
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }

    static void deleteTree(Path root) throws IOException {
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
