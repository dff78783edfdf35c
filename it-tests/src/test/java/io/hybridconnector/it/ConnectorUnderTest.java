package io.hybridconnector.it;

/** The connectors every parity test runs against: stock NIO (the baseline) and ours. */
public enum ConnectorUnderTest {

    STOCK_NIO("org.apache.coyote.http11.Http11NioProtocol", "org.apache.tomcat.util.net.NioEndpoint$Poller.run"),
    HYBRID("io.hybridconnector.HybridHttp11Protocol", "io.hybridconnector.loop.EventLoop.lead");

    /** The protocol class name, as in server.xml. */
    public final String protocol;
    /** The method that runs the connector's selector loop, as {@code class.method}. */
    public final String selectorLoopFrame;

    ConnectorUnderTest(String protocol, String selectorLoopFrame) {
        this.protocol = protocol;
        this.selectorLoopFrame = selectorLoopFrame;
    }
}
