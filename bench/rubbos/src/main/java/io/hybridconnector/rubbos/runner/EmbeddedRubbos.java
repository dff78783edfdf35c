package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * Embedded Tomcat serving the RUBBoS WAR, unchanged, under {@code /rubbos} with one chosen connector. The WAR's
 * META-INF/context.xml builds its DataSource from the {@code rubbos.jdbc.*} system properties, which
 * {@link JdbcSettings#apply()} sets before this starts. Created and closed by one thread; Tomcat's threads serve.
 */
public final class EmbeddedRubbos implements AutoCloseable {

    private final Tomcat tomcat;
    private final Connector connector;
    /** Tomcat's base directory, a fresh temporary one; deleted by {@link #close}. */
    private final Path base;

    private EmbeddedRubbos(Tomcat tomcat, Connector connector, Path base) {
        this.tomcat = tomcat;
        this.connector = connector;
        this.base = base;
    }

    /**
     * @param port 0 for any free port
     */
    public static EmbeddedRubbos start(Path war, ConnectorChoice choice, int port) throws LifecycleException,
            IOException {
        return start(war, choice, port, Map.of());
    }

    /**
     * @param port       0 for any free port
     * @param attributes connector attributes as in server.xml (e.g. {@code threads=200}), applied after the defaults
     */
    public static EmbeddedRubbos start(Path war, ConnectorChoice choice, int port, Map<String, String> attributes)
            throws LifecycleException, IOException {
        if (!Files.isRegularFile(war)) {
            throw new IllegalStateException("The RUBBoS WAR is not at " + war + "; build it with "
                    + "mvn -pl bench/rubbos -am package");
        }
        Path base = Files.createTempDirectory("rubbos-tomcat-" + choice.label());
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.enableNaming();
        Connector connector = new Connector(choice.protocol);
        connector.setPort(port);
        // The value of Tomcat's shipped server.xml (the embedded default is 60 s): what an operator runs with.
        connector.setProperty("connectionTimeout", "20000");
        attributes.forEach((name, value) -> {
            if (!connector.setProperty(name, value)) {
                throw new IllegalArgumentException("connector " + choice.protocol + " has no attribute " + name);
            }
        });
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        tomcat.getHost().setAutoDeploy(false);
        Files.createDirectories(base.resolve("webapps"));
        // Tomcat's default web.xml would also declare the JSP servlet, which embedded Tomcat does not have; RUBBoS
        // needs only the default servlet (static pages and the logo) and the MIME types.
        tomcat.setAddDefaultWebXmlToWebapp(false);
        Context context = tomcat.addWebapp("/rubbos", war.toAbsolutePath().toString());
        Tomcat.addServlet(context, "default", "org.apache.catalina.servlets.DefaultServlet").setLoadOnStartup(1);
        context.addServletMappingDecoded("/", "default");
        Tomcat.addDefaultMimeTypeMappings(context);
        tomcat.start();
        if (connector.getLocalPort() <= 0) {
            tomcat.stop();
            tomcat.destroy();
            deleteRecursively(base);
            throw new IllegalStateException("connector " + choice.protocol + " did not start: "
                    + connector.getState());
        }
        return new EmbeddedRubbos(tomcat, connector, base);
    }

    public int port() {
        return connector.getLocalPort();
    }

    @Override
    public void close() throws LifecycleException {
        try {
            tomcat.stop();
            tomcat.destroy();
        } finally {
            deleteRecursively(base);
        }
    }

    /** Deletes a directory tree, best effort. */
    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // a temporary directory left behind is not worth failing a run for
        }
    }
}
