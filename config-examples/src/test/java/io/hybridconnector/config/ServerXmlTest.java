package io.hybridconnector.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.util.Set;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.NodeList;

/** Every example parses, uses our connector, and sets only attributes the connector documents. */
class ServerXmlTest {

    static final Set<String> DOCUMENTED = Set.of("port", "address", "protocol", "threads", "maxThreads",
            "maxConnections", "acceptCount", "connectionTimeout", "keepAliveTimeout", "maxKeepAliveRequests",
            "maxHttpHeaderSize", "maxPostSize", "maxSwallowSize", "compression", "compressibleMimeType",
            "maxTrailerSize", "relaxedPathChars", "relaxedQueryChars", "server", "URIEncoding", "enableLookups",
            "redirectPort", "socket.tcpNoDelay", "loops", "blockedHandOffMillis", "timeSlicing",
            "writeStrategy", "writeBehindLimit", "acceptMode", "requestReadTimeout", "minRequestDataRate",
            "threadModel", "useSendfile", "SSLEnabled", "defaultSSLHostConfigName", "sniParseLimit",
            "sslImplementationName");

    /** Attributes documented for HybridAjpProtocol in the httpd-ajp example. */
    static final Set<String> DOCUMENTED_AJP = Set.of("port", "address", "protocol", "threads", "maxThreads", "secret",
            "secretRequired", "allowedRequestAttributesPattern", "packetSize", "maxConnections", "connectionTimeout",
            "loops", "writeStrategy", "acceptMode");

    @ParameterizedTest
    @ValueSource(strings = { "tomcat-9.0", "tomcat-10.1", "tomcat-11.0", "one-parameter", "httpd-ajp", "tls" })
    void exampleUsesOurConnectorWithDocumentedAttributes(String folder) throws Exception {
        Document doc;
        try (InputStream in = getClass().getResourceAsStream("/config-examples/" + folder + "/server.xml")) {
            doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
        }
        NodeList connectors = doc.getElementsByTagName("Connector");
        boolean ours = false;
        for (int i = 0; i < connectors.getLength(); i++) {
            Element c = (Element) connectors.item(i);
            String protocol = c.getAttribute("protocol");
            Set<String> documented = protocol.equals("io.hybridconnector.HybridHttp11Protocol") ? DOCUMENTED :
                    protocol.equals("io.hybridconnector.HybridAjpProtocol") ? DOCUMENTED_AJP : null;
            if (documented == null) {
                continue;
            }
            ours |= documented == DOCUMENTED;
            NamedNodeMap attributes = c.getAttributes();
            for (int a = 0; a < attributes.getLength(); a++) {
                String name = attributes.item(a).getNodeName();
                assertTrue(documented.contains(name), folder + ": undocumented attribute " + name);
            }
        }
        assertTrue(ours, folder + " has no HybridHttp11Protocol connector");
        assertFalse(doc.getElementsByTagName("Service").getLength() == 0);
    }
}
