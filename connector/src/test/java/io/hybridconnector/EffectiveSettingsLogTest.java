package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start-up line shows the settings in force, also when they were set the way Spring Boot 3.5 sets them: through
 * the protocol's setters after construction, with {@code bindOnInit="false"} (Tomcat reports
 * {@code maxKeepAliveRequests} as 1 until the socket is bound) and the request and response header sizes set apart.
 */
class EffectiveSettingsLogTest {

    @Test
    void startLineShowsWhatIsInForceAfterSettersAsSpringBootUsesThem(@TempDir Path base) throws Exception {
        StartLine startLine = new StartLine();
        Tomcat tomcat = new Tomcat();
        try {
            tomcat.setBaseDir(base.toString());
            Connector connector = new Connector(HybridHttp11Protocol.class.getName());
            connector.setPort(0);
            connector.setProperty("bindOnInit", "false"); // TomcatServletWebServerFactory does this
            HybridHttp11Protocol protocol = (HybridHttp11Protocol) connector.getProtocolHandler();
            // What Boot's TomcatWebServerFactoryCustomizer calls for its defaults and a few properties:
            protocol.setMaxKeepAliveRequests(100);
            protocol.setMaxHttpRequestHeaderSize(16 * 1024);
            protocol.setMaxHttpResponseHeaderSize(12 * 1024);
            protocol.setMaxThreads(77);
            protocol.setConnectionTimeout(15000);
            protocol.setKeepAliveTimeout(20000);
            tomcat.getService().addConnector(connector);
            tomcat.setConnector(connector);
            tomcat.start();
            String line = startLine.settings();
            for (String expected : new String[] { " maxKeepAliveRequests=100 ", " maxHttpRequestHeaderSize=16384 ",
                    " maxHttpResponseHeaderSize=12288 ", "threads=77 ", " connectionTimeout=15000ms ",
                    " keepAliveTimeout=20000ms" }) {
                assertTrue(line.contains(expected), "missing [" + expected + "] in: " + line);
            }
        } finally {
            startLine.close();
            tomcat.stop();
            tomcat.destroy();
        }
    }
}
