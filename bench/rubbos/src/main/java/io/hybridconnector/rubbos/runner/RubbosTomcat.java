package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.hybridconnector.bench.harness.cpu.Taskset;
import io.hybridconnector.bench.harness.tomcat.CatalinaBase;

/**
 * One Tomcat of the 3-tier mode: a real distribution ({@code CATALINA_HOME}, unpacked from Maven Central) on a fresh
 * {@code CATALINA_BASE} launched by the harness's {@link CatalinaBase}, with a server.xml of one HTTP connector (stock
 * NIO or ours) and no shutdown port, our jar and the MariaDB driver in {@code lib/}, and the RUBBoS WAR, unchanged,
 * as {@code webapps/rubbos.war}. Stopped with SIGTERM. Created, started and closed by the runner's main thread.
 */
final class RubbosTomcat implements AutoCloseable {

    /** What to start. {@code attributes} are added to the Connector element (server.xml names and meanings). */
    record Spec(Path catalinaHome, Path base, ConnectorChoice connector, Map<String, String> attributes, int port,
                Path war, List<Path> libJars, List<String> jvmOptions, String cpus) {
    }

    private final Spec spec;
    private CatalinaBase tomcat;

    private RubbosTomcat(Spec spec) {
        this.spec = spec;
    }

    /** Lays out CATALINA_BASE, starts Tomcat and waits until the WAR answers on its connector. */
    static RubbosTomcat start(Spec spec, Duration timeout) throws IOException, InterruptedException {
        RubbosTomcat t = new RubbosTomcat(spec);
        Map<String, Path> lib = new LinkedHashMap<>();
        spec.libJars().forEach(jar -> lib.put(jar.getFileName().toString(), jar));
        t.tomcat = CatalinaBase.start(new CatalinaBase.Spec(spec.catalinaHome(), spec.base(),
                Path.of(System.getProperty("java.home")), spec.jvmOptions(), t.serverXml(), lib,
                Map.of("rubbos.war", spec.war()), Taskset.prefix(spec.cpus()), CatalinaBase.Stop.SIGTERM),
                List.of(URI.create("http://127.0.0.1:" + spec.port() + "/rubbos/servlet/StoriesOfTheDay")), timeout);
        return t;
    }

    long pid() {
        return tomcat.pid();
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
        if (tomcat == null) {
            return;
        }
        try {
            tomcat.close();
        } catch (IOException cannotHappen) {
            // only stopping through the shutdown port runs a command that can fail
        }
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }
}
