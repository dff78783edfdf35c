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
 * the main job and of the reliability suite, launched by {@link CatalinaBase}. On request ({@link Protocols}) each of
 * the two also speaks HTTP/2 by h2c upgrade and has a TLS twin on a third and fourth port, so that a comparison covers
 * those protocols with the same server.xml on both sides. Run as an unprivileged user on request ({@link
 * Config#runningAs}). Used from one thread (the benchmark's main thread).
 */
public final class SideBySideTomcat implements AutoCloseable {

    public static final String STOCK_PROTOCOL = "org.apache.coyote.http11.Http11NioProtocol";
    public static final String OUR_PROTOCOL = "io.hybridconnector.HybridHttp11Protocol";

    /**
     * What to start. {@code extra*Attributes} are added verbatim to that Connector element (and to its TLS twin).
     *
     * @param bindAddress    where the connectors listen: loopback for the benchmarks; the reliability suite's
     *                       clients in a network namespace cannot reach the host's loopback, so they get the host's
     *                       end of their veth pair
     * @param hostAttributes added verbatim to the Host element, e.g. {@code backgroundProcessorDelay="1"} so that a
     *                       valve's background check runs every second rather than the Engine's every 10 s
     * @param hostElements   put verbatim inside the Host element, e.g. a {@code <Valve>}; empty for none
     * @param runAs          the user Tomcat runs as ({@link CatalinaBase.Spec#runAs}); null: this process's user
     */
    public record Config(Path catalinaHome, Path connectorJar, Path samplesWar, Path base, Path javaHome,
            List<String> jvmOptions, String extraStockAttributes, String extraOurAttributes, Pinning pinning,
            Protocols protocols, String bindAddress, String hostAttributes, String hostElements, String runAs) {

        /** Everything, Tomcat run by this process's user. */
        public Config(Path catalinaHome, Path connectorJar, Path samplesWar, Path base, Path javaHome,
                List<String> jvmOptions, String extraStockAttributes, String extraOurAttributes, Pinning pinning,
                Protocols protocols, String bindAddress, String hostAttributes, String hostElements) {
            this(catalinaHome, connectorJar, samplesWar, base, javaHome, jvmOptions, extraStockAttributes,
                    extraOurAttributes, pinning, protocols, bindAddress, hostAttributes, hostElements, null);
        }

        /** Plain HTTP/1.1 only, on loopback, nothing in the Host but the samples: as the main job measures it. */
        public Config(Path catalinaHome, Path connectorJar, Path samplesWar, Path base, Path javaHome,
                List<String> jvmOptions, String extraStockAttributes, String extraOurAttributes, Pinning pinning) {
            this(catalinaHome, connectorJar, samplesWar, base, javaHome, jvmOptions, extraStockAttributes,
                    extraOurAttributes, pinning, Protocols.HTTP_1_1);
        }

        /** These protocols, on loopback, nothing in the Host but the samples. */
        public Config(Path catalinaHome, Path connectorJar, Path samplesWar, Path base, Path javaHome,
                List<String> jvmOptions, String extraStockAttributes, String extraOurAttributes, Pinning pinning,
                Protocols protocols) {
            this(catalinaHome, connectorJar, samplesWar, base, javaHome, jvmOptions, extraStockAttributes,
                    extraOurAttributes, pinning, protocols, "127.0.0.1", "", "");
        }

        /** Plain HTTP/1.1 only, with this bind address and Host. */
        public Config(Path catalinaHome, Path connectorJar, Path samplesWar, Path base, Path javaHome,
                List<String> jvmOptions, String extraStockAttributes, String extraOurAttributes, Pinning pinning,
                String bindAddress, String hostAttributes, String hostElements) {
            this(catalinaHome, connectorJar, samplesWar, base, javaHome, jvmOptions, extraStockAttributes,
                    extraOurAttributes, pinning, Protocols.HTTP_1_1, bindAddress, hostAttributes, hostElements);
        }

        /** This configuration with Tomcat run as {@code user} (null: this process's user). */
        public Config runningAs(String user) {
            return new Config(catalinaHome, connectorJar, samplesWar, base, javaHome, jvmOptions, extraStockAttributes,
                    extraOurAttributes, pinning, protocols, bindAddress, hostAttributes, hostElements, user);
        }
    }

    /**
     * What both connectors speak besides plain HTTP/1.1, identically on both sides. Tomcat's own configuration does it
     * (ours extends {@code AbstractHttp11Protocol}, so the same nested elements apply): h2c is an {@code
     * <UpgradeProtocol className="org.apache.coyote.http2.Http2Protocol"/>} inside each plain connector; TLS cannot
     * share a port with plain HTTP, so it is a twin connector per side ({@code SSLEnabled="true"}, one {@code
     * <SSLHostConfig>} with the keystore's certificate) with the same protocol class and attributes.
     *
     * @param h2c              HTTP/2 by upgrade on the plain ports
     * @param keystore         a PKCS12 keystore holding the TLS certificate and its key; {@code null}: no TLS twins
     * @param keystorePassword its password (store and key)
     */
    public record Protocols(boolean h2c, Path keystore, String keystorePassword) {

        public static final Protocols HTTP_1_1 = new Protocols(false, null, null);

        public boolean tls() {
            return keystore != null;
        }
    }

    private final Config config;
    private final int shutdownPort;
    private final int stockPort;
    private final int ourPort;
    private final int stockTlsPort;
    private final int ourTlsPort;
    private CatalinaBase tomcat;

    public SideBySideTomcat(Config config) throws IOException {
        this.config = config;
        this.shutdownPort = CatalinaBase.freePort();
        this.stockPort = CatalinaBase.freePort();
        this.ourPort = CatalinaBase.freePort();
        this.stockTlsPort = config.protocols().tls() ? CatalinaBase.freePort() : -1;
        this.ourTlsPort = config.protocols().tls() ? CatalinaBase.freePort() : -1;
    }

    public int stockPort() {
        return stockPort;
    }

    public int ourPort() {
        return ourPort;
    }

    /** Stock's TLS twin, or -1 without {@link Protocols#tls}. */
    public int stockTlsPort() {
        return stockTlsPort;
    }

    /** Our TLS twin, or -1 without {@link Protocols#tls}. */
    public int ourTlsPort() {
        return ourTlsPort;
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
                CatalinaBase.Stop.SHUTDOWN_PORT, config.runAs()), List.of(URI.create("http://" + config.bindAddress() + ":" + stockPort
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
        Protocols p = config.protocols();
        String stockConnector = "maxKeepAliveRequests=\"-1\" acceptCount=\"1024\" "
                + defaultTimeout(config.extraStockAttributes()) + " " + config.extraStockAttributes();
        String ourConnector = "acceptCount=\"1024\" " + defaultTimeout(config.extraOurAttributes()) + " "
                + config.extraOurAttributes();
        String tlsTwins = !p.tls() ? "" : """
                    <!-- TLS twins: the same protocol class and attributes as above, on ports of their own. -->
                    <Connector port="%d" address="%s" protocol="%s" SSLEnabled="true" %s>
                %s    </Connector>
                    <Connector port="%d" address="%s" protocol="%s" SSLEnabled="true" %s>
                %s    </Connector>
                """.formatted(stockTlsPort, config.bindAddress(), STOCK_PROTOCOL, stockConnector, sslHostConfig(p),
                ourTlsPort, config.bindAddress(), OUR_PROTOCOL, ourConnector, sslHostConfig(p));
        String upgrade = p.h2c() ? "      <UpgradeProtocol className=\"org.apache.coyote.http2.Http2Protocol\" />\n"
                : "";
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
                    <Connector port="%d" address="%s" protocol="%s" %s>
                %s    </Connector>
                    <Connector port="%d" address="%s" protocol="%s" %s>
                %s    </Connector>
                %s    <Engine name="Catalina" defaultHost="localhost">
                      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="false" %s>
                        %s
                      </Host>
                    </Engine>
                  </Service>
                </Server>
                """.formatted(shutdownPort, stockPort, config.bindAddress(), STOCK_PROTOCOL, stockConnector, upgrade,
                ourPort, config.bindAddress(), OUR_PROTOCOL, ourConnector, upgrade, tlsTwins, config.hostAttributes(),
                config.hostElements());
    }

    /** One host config (the default host, {@code _default_}) with the keystore's certificate, TLS 1.2 and 1.3. */
    private static String sslHostConfig(Protocols p) {
        return """
                      <SSLHostConfig protocols="TLSv1.2+TLSv1.3">
                        <Certificate certificateKeystoreFile="%s" certificateKeystorePassword="%s"
                                     certificateKeystoreType="PKCS12" />
                      </SSLHostConfig>
                """.formatted(xmlAttribute(p.keystore().toAbsolutePath().toString()),
                xmlAttribute(p.keystorePassword()));
    }

    private static String xmlAttribute(String value) {
        return value.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /** connectionTimeout="20000" unless the extra attributes set it (an XML attribute may appear only once). */
    private static String defaultTimeout(String extraAttributes) {
        return extraAttributes.contains("connectionTimeout=") ? "" : "connectionTimeout=\"20000\"";
    }
}
