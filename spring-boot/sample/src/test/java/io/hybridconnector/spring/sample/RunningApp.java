package io.hybridconnector.spring.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;

import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.ProtocolHandler;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The sample application started in this JVM on an ephemeral port, with one connector kind and extra properties, as
 * a user starts it: {@code SpringApplication.run} with command-line properties. Reaches Boot's web server by method
 * name, because its class moved between Boot 3 and 4. Closing it stops the application (gracefully, as configured).
 */
final class RunningApp implements AutoCloseable {

    static {
        // Surefire points java.io.tmpdir into target/ (Tomcat's base and docbase directories land there, never in
        // the system's temp directory); it must exist before Boot creates them.
        try {
            Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    final ConnectorKind kind;
    final ConfigurableApplicationContext context;
    final int port;

    private RunningApp(ConnectorKind kind, ConfigurableApplicationContext context) {
        this.kind = kind;
        this.context = context;
        this.port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    }

    static RunningApp start(ConnectorKind kind, String... properties) {
        List<String> args = new ArrayList<>(Arrays.asList(properties));
        args.add(kind.switchArgument);
        SpringApplication application = new SpringApplication(SampleApplication.class);
        application.setRegisterShutdownHook(false);
        return new RunningApp(kind, application.run(args.toArray(String[]::new)));
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** Boot's embedded Tomcat: {@code getWebServer().getTomcat()} on either Boot line. */
    Tomcat tomcat() {
        try {
            Object webServer = context.getClass().getMethod("getWebServer").invoke(context);
            return (Tomcat) webServer.getClass().getMethod("getTomcat").invoke(webServer);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    ProtocolHandler protocol() {
        return tomcat().getConnector().getProtocolHandler();
    }

    /**
     * The {@code name} tag of actuator's {@code tomcat.*} meters for this application's connector. They are read from
     * Tomcat's MBeans, and every Tomcat in the JVM registers its own: the tests run several applications in one JVM,
     * and each registry sees them all (a stopped one reads -2 busy threads). The tag is the name the connector had
     * when it registered its MBeans ({@code http-nio-auto-1}), which its name now extends with the port.
     */
    String tomcatMeterTag() {
        String now = javax.management.ObjectName.unquote(((org.apache.coyote.AbstractProtocol<?>) protocol()).getName());
        return meters().find("tomcat.threads.busy").gauges().stream().map(g -> g.getId().getTag("name"))
                .filter(tag -> now.equals(tag) || now.startsWith(tag + "-")).findFirst()
                .orElseThrow(() -> new AssertionError("no tomcat.threads.busy meter for " + now));
    }

    MeterRegistry meters() {
        return context.getBean(MeterRegistry.class);
    }

    SampleEndpoints endpoints() {
        return context.getBean(SampleEndpoints.class);
    }

    @Override
    public void close() {
        context.close();
    }

    @Override
    public String toString() {
        return kind + " on Boot " + System.getProperty("sample.bootLine", "?") + ", port " + port;
    }
}
