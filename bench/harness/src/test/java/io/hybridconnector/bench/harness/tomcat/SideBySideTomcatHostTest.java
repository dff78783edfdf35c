package io.hybridconnector.bench.harness.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import io.hybridconnector.bench.harness.cpu.Pinning;

/** The server.xml of the benchmarks and of the reliability suite: bind address, Host attributes and elements where the caller said. */
class SideBySideTomcatHostTest {

    private static final Path ANY = Path.of("unused");

    @Test
    void benchmarksGetBothConnectorsOnLoopbackAndAnEmptyHost() throws Exception {
        Document xml = parse(new SideBySideTomcat(new SideBySideTomcat.Config(ANY, ANY, ANY, ANY, ANY, List.of(), "",
                "", Pinning.detect(false, 0, 1))));
        for (Element connector : elements(xml, "Connector")) {
            assertEquals("127.0.0.1", connector.getAttribute("address"));
            assertEquals("20000", connector.getAttribute("connectionTimeout"));
        }
        assertEquals(0, elements(xml, "Valve").size());
    }

    @Test
    void aValveAndHostAttributesAndAnotherAddressGoWhereTheCallerSaid() throws Exception {
        Document xml = parse(new SideBySideTomcat(new SideBySideTomcat.Config(ANY, ANY, ANY, ANY, ANY, List.of(),
                "connectionTimeout=\"5000\"", "maxConnections=\"32\"", Pinning.detect(false, 0, 1), "10.231.0.1",
                "backgroundProcessorDelay=\"1\"",
                "<Valve className=\"org.apache.catalina.valves.StuckThreadDetectionValve\" threshold=\"2\"/>")));
        List<Element> connectors = elements(xml, "Connector");
        assertEquals(2, connectors.size());
        for (Element connector : connectors) {
            assertEquals("10.231.0.1", connector.getAttribute("address"));
        }
        assertEquals("5000", connectors.get(0).getAttribute("connectionTimeout"));
        assertEquals("32", connectors.get(1).getAttribute("maxConnections"));
        Element host = elements(xml, "Host").get(0);
        assertEquals("1", host.getAttribute("backgroundProcessorDelay"));
        Element valve = elements(xml, "Valve").get(0);
        assertEquals(host, valve.getParentNode());
        assertEquals("2", valve.getAttribute("threshold"));
    }

    private static Document parse(SideBySideTomcat tomcat) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new InputSource(new StringReader(tomcat.serverXml())));
    }

    private static List<Element> elements(Document xml, String name) {
        NodeList nodes = xml.getElementsByTagName(name);
        List<Element> list = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            list.add((Element) nodes.item(i));
        }
        return list;
    }
}
