package io.hybridconnector.it.dist;

/** WebSocket, h2c and AJP on the real Tomcat 9.0 distribution, stock connectors and ours. */
class Tomcat9ProtocolsTest extends ProtocolsTestBase {

    @Override
    String versionProperty() {
        return "tomcat9.version";
    }
}
