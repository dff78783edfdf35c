package io.hybridconnector.bench.harness.tomcat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.hybridconnector.bench.harness.cpu.Pinning;

/**
 * One Tomcat distribution with two connectors on two ports, stock NIO and ours, serving the samples WAR: the server of
 * the main job and of the reliability suite, launched by {@link CatalinaBase}. Used from one thread (the benchmark's
 * main thread).
 */
public final class SideBySideTomcat implements AutoCloseable {

    public static final String STOCK_PROTOCOL = "org.apache.coyote.http11.Http11NioProtocol";
    public static final String OUR_PROTOCOL = "io.hybridconnector.HybridHttp11Protocol";

    /**
     * What to start. {@code extra*Attributes} are added verbatim to that Connector element.
     *
     * @param bindAddress    where both connectors listen: loopback for the benchmarks; the reliability suite's
     *                       clients in a network namespace cannot reach the host's loopback, so they get the host's
     *                       end of their veth pair
     * @param hostAttributes added verbatim to the Host element, e.g. {@code backgroundProcessorDelay="1"} so that a
     *                       valve's background check runs every second rather than the Engine's every 10 s
     * @param hostElements   put verbatim inside the Host element, e.g. a {@code <Valve>}; empty for none
     */
    public record Config(Path catalinaHome, Path connectorJar, Path samplesWar, Path base, Path javaHome,
            List<String> jvmOptions, String extraStockAttributes, String extraOurAttributes, Pinning pinning,
            String bindAddress, String hostAttributes, String hostElements) {

        /** The benchmarks' server: both connectors on loopback, nothing in the Host but the samples. */
        public Config(Path catalinaHome, Path connectorJar, Path samplesWar, Path base, Path javaHome,
                List<String> jvmOptions, String extraStockAttributes, String extraOurAttributes, Pinning pinning) {
            this(catalinaHome, connectorJar, samplesWar, base, javaHome, jvmOptions, extraStockAttributes,
                    extraOurAttributes, pinning, "127.0.0.1", "", "");
        }
    }

    private final Config config;
    private final int shutdownPort;
    private final int stockPort;
    private final int ourPort;
    private CatalinaBase tomcat;

    public SideBySideTomcat(Config config) throws IOException {
        this.config = config;
        this.shutdownPort = CatalinaBase.freePort();
        this.stockPort = CatalinaBase.freePort();
        this.ourPort = CatalinaBase.freePort();
    }

    public int stockPort() {
        return stockPort;
    }

    public int ourPort() {
        return ourPort;
    }

    public long pid() {
        return tomcat.pid();
    }

    public Path base() {
        return config.base();
    }

    /** See {@link CatalinaBase#exitValue}. */
    public int exitValue() {
        return tomcat.exitValue();
    }

    /** Lays out CATALINA_BASE, starts Tomcat and waits until both connectors serve {@code readyPath}. */
    public void start(String readyPath, Duration timeout) throws IOException, InterruptedException {
        tomcat = CatalinaBase.start(new CatalinaBase.Spec(config.catalinaHome(), config.base(), config.javaHome(),
                config.jvmOptions(), serverXml(), Map.of("hybrid-connector.jar", config.connectorJar()),
                Map.of("samples.war", config.samplesWar()), config.pinning().serverPrefix(),
                CatalinaBase.Stop.SHUTDOWN_PORT), List.of(URI.create("http://" + config.bindAddress() + ":" + stockPort
                + readyPath), URI.create("http://" + config.bindAddress() + ":" + ourPort + readyPath)), timeout);
    }

    /** Stops with {@code catalina.sh stop} (the shutdown port), then forcibly after 30 s. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (tomcat != null) {
            tomcat.close();
        }
    }

    /** See {@link CatalinaBase#jcmd}. */
    public String jcmd(String command) throws IOException, InterruptedException {
        return tomcat.jcmd(command);
    }

    /** Everything Tomcat logged so far (console and log files). */
    public String logs() throws IOException {
        return tomcat.logs();
    }

    String serverXml() {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by the benchmark harness: stock NIO and ours side by side, no access log (per-request file
                     I/O would be measured too), no auto-deploy (a background scan every 10 s). -->
                <Server port="%d" shutdown="SHUTDOWN">
                  <Listener className="org.apache.catalina.startup.VersionLoggerListener" />
                  <Listener className="org.apache.catalina.core.JreMemoryLeakPreventionListener" />
                  <Listener className="org.apache.catalina.core.ThreadLocalLeakPreventionListener" />
                  <Service name="Catalina">
                    <!-- Stock: the settings of shared/anchors/baseline-stock-connectors.md. -->
                    <Connector port="%d" address="%s" protocol="%s" %s
                               maxKeepAliveRequests="-1" acceptCount="1024" %s/>
                    <Connector port="%d" address="%s" protocol="%s" %s
                               acceptCount="1024" %s/>
                    <Engine name="Catalina" defaultHost="localhost">
                      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="false" %s>
                        %s
                      </Host>
                    </Engine>
                  </Service>
                </Server>
                """.formatted(shutdownPort, stockPort, config.bindAddress(), STOCK_PROTOCOL,
                defaultTimeout(config.extraStockAttributes()), config.extraStockAttributes(), ourPort,
                config.bindAddress(), OUR_PROTOCOL, defaultTimeout(config.extraOurAttributes()),
                config.extraOurAttributes(), config.hostAttributes(), config.hostElements());
    }

    /** connectionTimeout="20000" unless the extra attributes set it (an XML attribute may appear only once). */
    private static String defaultTimeout(String extraAttributes) {
        return extraAttributes.contains("connectionTimeout=") ? "" : "connectionTimeout=\"20000\"";
    }
}
