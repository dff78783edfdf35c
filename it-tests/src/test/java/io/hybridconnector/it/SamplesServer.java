package io.hybridconnector.it;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;

import io.hybridconnector.TempDirs;
import io.hybridconnector.TlsKeys;

import jakarta.servlet.ServletException;
import jakarta.websocket.DeploymentException;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;

import org.apache.catalina.Host;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.servlets.DefaultServlet;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;
import org.apache.tomcat.websocket.server.WsSci;
import org.apache.catalina.valves.AccessLogValve;

/**
 * Embedded Tomcat with the samples WAR deployed unchanged under {@code /samples}, on a free port, with the
 * connector under test.
 */
final class SamplesServer implements AutoCloseable {

    final Tomcat tomcat;
    final Connector connector;
    final int port;
    final Path accessLogDir;
    /** Tomcat's base directory, a fresh temporary one; deleted by {@link #close}. */
    final Path baseDir;
    /** Whether the parity tests' clients must speak TLS to this server ({@code -Dit.tls=true}). */
    final boolean tls;
    private javax.net.ssl.SSLContext clientContext;

    SamplesServer(ConnectorUnderTest which) throws Exception {
        this(which, Map.of());
    }

    /**
     * @param properties connector attributes (e.g. {@code connectionTimeout}), set after this class's defaults, so
     *                   they override them; an attribute the connector does not know fails the start
     */
    SamplesServer(ConnectorUnderTest which, Map<String,String> properties) throws Exception {
        this(which, properties, connector -> { });
    }

    /** @param customize applied to the connector before the start (TLS host configurations, upgrade protocols) */
    SamplesServer(ConnectorUnderTest which, Map<String,String> properties, Consumer<Connector> customize)
            throws Exception {
        String war = System.getProperty("samples.war");
        if (war == null || !new File(war).isFile()) {
            throw new IllegalStateException("System property samples.war must point at samples.war, got " + war);
        }
        Path base = Files.createTempDirectory("it-" + which.name());
        baseDir = base;
        try {
            tomcat = new Tomcat();
            tomcat.setBaseDir(base.toString());
            connector = new Connector(which.protocol);
            connector.setPort(0);
            connector.setProperty("maxKeepAliveRequests", "-1");
            connector.setProperty("connectionTimeout", "20000");
            for (Map.Entry<String,String> p : properties.entrySet()) {
                if (!connector.setProperty(p.getKey(), p.getValue())) {
                    throw new IllegalArgumentException("connector " + which + " rejected " + p);
                }
            }
            if (which == ConnectorUnderTest.HYBRID) {
                // The same test bodies on every thread model and write strategy of ours (surefire executions model-*).
                for (String attribute : new String[] { "threadModel", "writeStrategy" }) {
                    String value = System.getProperty("it." + attribute);
                    if (value != null && !value.isEmpty()) {
                        connector.setProperty(attribute, value);
                    }
                }
            }
            customize.accept(connector);
            tls = TlsSupport.PARITY_OVER_TLS && !properties.containsKey("SSLEnabled");
            if (tls) {
                // The same test bodies over HTTPS (surefire execution model-tls): Tomcat's own TLS configuration.
                connector.setProperty("SSLEnabled", "true");
                connector.addSslHostConfig(TlsKeys.host("_default_", TlsSupport.defaultKeystore()));
            }
            tomcat.getService().addConnector(connector);
            tomcat.setConnector(connector);
            Host host = tomcat.getHost();
            accessLogDir = base.resolve("logs");
            AccessLogValve accessLog = new AccessLogValve();
            accessLog.setDirectory(accessLogDir.toString());
            accessLog.setPrefix("access");
            accessLog.setSuffix(".log");
            accessLog.setPattern("%r %s %b");
            accessLog.setBuffered(false);
            host.getPipeline().addValve(accessLog);
            tomcat.addWebapp("/samples", new File(war).getAbsolutePath());
            tomcat.start();
            port = connector.getLocalPort();
            if (port <= 0) {
                throw new IllegalStateException("connector " + which + " did not start: " + connector.getState());
            }
        } catch (Exception | Error e) {
            TempDirs.deleteRecursively(base);
            throw e;
        }
    }

    Socket connect() throws IOException {
        if (tls) {
            try {
                if (clientContext == null) {
                    clientContext = TlsSupport.keys().clientContext(null);
                }
                return TlsKeys.connect(port, clientContext, null, 30000);
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(30000);
        return s;
    }

    @Override
    public void close() throws Exception {
        try {
            tomcat.stop();
            tomcat.destroy();
        } finally {
            TempDirs.deleteRecursively(baseDir);
        }
    }


    /**
     * Adds a WebSocket application at {@code contextPath} to the running server, with {@code endpoint} deployed and
     * {@code configure} applied to its container first. A default servlet maps every path, because Tomcat's upgrade
     * filter runs only for a mapped request.
     */
    void addWebSocketContext(String contextPath, ServerEndpointConfig endpoint, Consumer<ServerContainer> configure) {
        StandardContext ctx = new StandardContext();
        ctx.setPath(contextPath);
        ctx.setName(contextPath);
        ctx.setDocBase(null);
        ctx.addLifecycleListener(new Tomcat.FixContextListener());
        ctx.setJarScanner(new StandardJarScanner());
        ((StandardJarScanner) ctx.getJarScanner()).setScanClassPath(false);
        ctx.addServletContainerInitializer(new WsSci(), null);
        ctx.addServletContainerInitializer((classes, servletContext) -> {
            ServerContainer sc = (ServerContainer) servletContext.getAttribute(ServerContainer.class.getName());
            configure.accept(sc);
            try {
                sc.addEndpoint(endpoint);
            } catch (DeploymentException e) {
                throw new ServletException(e);
            }
        }, null);
        tomcat.getHost().addChild(ctx);
        Tomcat.addServlet(ctx, "default", new DefaultServlet());
        ctx.addServletMappingDecoded("/", "default");
    }
}
