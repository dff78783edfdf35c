package io.hybridconnector.bench.harness.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import io.hybridconnector.bench.harness.cpu.Pinning;

/** The server.xml both sides share: well-formed, and the same nested elements on stock's connectors and ours. */
class SideBySideTomcatTest {

    private static Document serverXml(SideBySideTomcat.Protocols protocols) throws Exception {
        SideBySideTomcat t = new SideBySideTomcat(new SideBySideTomcat.Config(Path.of("home"), Path.of("jar"),
                Path.of("war"), Path.of("base"), Path.of("java"), List.of(), "", "socket.rxBufSize=\"8192\"",
                Pinning.detect(false, 0, 1), protocols));
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(t.serverXml().getBytes(StandardCharsets.UTF_8)));
    }

    /** Per connector: protocol class, SSLEnabled, and the names of its child elements. */
    private static List<String> connectors(Document d) {
        List<String> out = new ArrayList<>();
        NodeList cs = d.getElementsByTagName("Connector");
        for (int i = 0; i < cs.getLength(); i++) {
            Element c = (Element) cs.item(i);
            StringBuilder sb = new StringBuilder(c.getAttribute("protocol").replaceAll(".*\\.", ""))
                    .append(" ssl=").append(c.getAttribute("SSLEnabled"));
            NodeList children = c.getChildNodes();
            for (int j = 0; j < children.getLength(); j++) {
                if (children.item(j) instanceof Element e) {
                    sb.append(' ').append(e.getTagName());
                }
            }
            out.add(sb.toString());
        }
        return out;
    }

    @Test
    void plainHttp11IsTwoConnectorsWithoutChildren() throws Exception {
        assertEquals(List.of("Http11NioProtocol ssl=", "HybridHttp11Protocol ssl="),
                connectors(serverXml(SideBySideTomcat.Protocols.HTTP_1_1)));
    }

    @Test
    void h2cAndTlsAreTheSameOnBothSides() throws Exception {
        Document d = serverXml(new SideBySideTomcat.Protocols(true, Path.of("/run/a&b.p12"), "pw\"1"));
        assertEquals(List.of("Http11NioProtocol ssl= UpgradeProtocol", "HybridHttp11Protocol ssl= UpgradeProtocol",
                "Http11NioProtocol ssl=true SSLHostConfig", "HybridHttp11Protocol ssl=true SSLHostConfig"),
                connectors(d));
        Element certificate = (Element) d.getElementsByTagName("Certificate").item(1);
        assertEquals("/run/a&b.p12", certificate.getAttribute("certificateKeystoreFile"));
        assertEquals("pw\"1", certificate.getAttribute("certificateKeystorePassword"));
        assertEquals("8192", ((Element) d.getElementsByTagName("Connector").item(3)).getAttribute("socket.rxBufSize"));
    }
}
