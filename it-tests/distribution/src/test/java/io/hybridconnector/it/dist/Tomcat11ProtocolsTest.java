package io.hybridconnector.it.dist;

/** WebSocket, h2c and AJP on the real Tomcat 11.0 distribution, stock connectors and ours. */
class Tomcat11ProtocolsTest extends ProtocolsTestBase {

    @Override
    String versionProperty() {
        return "tomcat11.version";
    }
}
