package io.hybridconnector.it.arquillian;

/** The connectors every test body here runs against: stock NIO (the baseline) and ours. */
enum ConnectorUnderTest {

    /** The adapter's own connector: Tomcat's default for HTTP/1.1. */
    STOCK_NIO("org.apache.coyote.http11.Http11NioProtocol", "org.apache.tomcat.util.net.NioEndpoint$SocketProcessor"),
    /** Added beside it by {@link SecondConnectorExtension}, protocol named in arquillian.xml. */
    HYBRID("io.hybridconnector.HybridHttp11Protocol", "io.hybridconnector.endpoint.");

    /** The protocol class name, as in server.xml. */
    final String protocol;
    /** A stack frame prefix found under a servlet only when this connector ran it. */
    final String framePrefix;

    ConnectorUnderTest(String protocol, String framePrefix) {
        this.protocol = protocol;
        this.framePrefix = framePrefix;
    }
}
