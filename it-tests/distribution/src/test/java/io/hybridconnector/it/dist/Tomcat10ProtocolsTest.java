package io.hybridconnector.it.dist;

/** WebSocket, h2c and AJP on the real Tomcat 10.1 (the primary target) distribution, stock connectors and ours. */
class Tomcat10ProtocolsTest extends ProtocolsTestBase {

    @Override
    String versionProperty() {
        return "tomcat10.version";
    }
}
