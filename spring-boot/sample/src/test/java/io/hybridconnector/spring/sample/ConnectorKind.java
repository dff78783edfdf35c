package io.hybridconnector.spring.sample;

/**
 * The two connectors every test body runs against, in the same application: stock NIO (the starter switched off with
 * {@code server.tomcat.hybrid.enabled=false}, as without it) and ours (the starter's default).
 */
enum ConnectorKind {

    STOCK("org.apache.coyote.http11.Http11NioProtocol", "--server.tomcat.hybrid.enabled=false"),
    HYBRID("io.hybridconnector.HybridHttp11Protocol", "--server.tomcat.hybrid.enabled=true");

    final String protocolClass;
    final String switchArgument;

    ConnectorKind(String protocolClass, String switchArgument) {
        this.protocolClass = protocolClass;
        this.switchArgument = switchArgument;
    }
}
