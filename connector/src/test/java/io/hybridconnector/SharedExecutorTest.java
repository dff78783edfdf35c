package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.net.ssl.SSLContext;

import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardThreadExecutor;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shared {@code <Executor>} named on the connector ({@code executor="tomcatThreadPool"}; embedded: a
 * {@code StandardThreadExecutor} added to the service and set on the protocol, which is what Tomcat's
 * {@code ConnectorCreateRule} does), issue 39 item 3's case: 20 requests blocked at once, each on a new connection.
 * Stock NIO runs all 20 on the executor. Ours did not (the executor's {@code activeCount} stayed 0: each started inline
 * on a loop and finished on the connector's thread its loop left). Now, once two requests of the class blocked (the
 * stall detector learns it when it moves their loop), ours reads each new request's line before Tomcat parses it and
 * starts it on the executor too: the executor's {@code activeCount} reaches 20 on both. The start line names the
 * executor, its {@code maxThreads}, and what stays on the connector's threads.
 */
class SharedExecutorTest {

    private static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    private static final String HYBRID = HybridHttp11Protocol.class.getName();
    private static final int BLOCKED = 20;

    @TempDir
    static Path keyDir;

    @Test
    void aSharedExecutorIsNamedOnTheStartLineWithWhatRunsOnIt() throws Exception {
        blockedRequestsOnNewConnectionsRunOnTheExecutor(null);
    }

    /**
     * The same over TLS, where the request line is encrypted until the engine unwraps it: ours peaked at 0 of 20 (each
     * new connection's request ran where its handshake ended, on a connector thread). Now a new TLS connection ends its
     * handshake and runs its first request on the executor once some class blocked.
     */
    @Test
    void overTlsTheFirstRequestOfANewConnectionRunsOnTheExecutorToo() throws Exception {
        TlsKeys keys = new TlsKeys(keyDir);
        Path keystore = keys.serverKeystore("shared-executor", "CN=localhost", "localhost");
        blockedRequestsOnNewConnectionsRunOnTheExecutor(new Tls(keys.clientContext(null), keystore));
    }

    private record Tls(SSLContext client, Path keystore) { }

    private static void blockedRequestsOnNewConnectionsRunOnTheExecutor(Tls tls) throws Exception {
        for (String protocol : new String[] { NIO, HYBRID }) {
            StartLine startLine = new StartLine();
            File base = Files.createTempDirectory("hybrid-shared-executor").toFile();
            Tomcat tomcat = new Tomcat();
            List<Socket> sockets = new ArrayList<>();
            try {
                tomcat.setBaseDir(base.getAbsolutePath());
                StandardThreadExecutor shared = new StandardThreadExecutor();
                shared.setName("tomcatThreadPool");
                shared.setNamePrefix("catalina-exec-");
                shared.setMaxThreads(150);
                shared.setMinSpareThreads(4);
                tomcat.getService().addExecutor(shared);
                Connector connector = new Connector(protocol);
                connector.setPort(0);
                if (tls != null) {
                    assertTrue(connector.setProperty("SSLEnabled", "true"));
                    connector.setSecure(true);
                    connector.setScheme("https");
                    SSLHostConfig host = TlsKeys.host("_default_", tls.keystore());
                    connector.addSslHostConfig(host);
                }
                connector.getProtocolHandler().setExecutor(shared);
                tomcat.getService().addConnector(connector);
                tomcat.setConnector(connector);
                Context ctx = tomcat.addContext("", base.getAbsolutePath());
                Tomcat.addServlet(ctx, "block", new TestServer.BlockServlet());
                ctx.addServletMappingDecoded("/block", "block");
                tomcat.start();
                int port = connector.getLocalPort();

                // Two requests teach the class (on ours they block connector threads), still sleeping meanwhile.
                for (int i = 0; i < 2; i++) {
                    sockets.add(connect(port, tls));
                    TestServer.sendGet(sockets.get(i), "/block?ms=1000");
                }
                Thread.sleep(300);
                for (int i = 0; i < BLOCKED; i++) {
                    Socket s = connect(port, tls);
                    sockets.add(s);
                    TestServer.sendGet(s, "/block?ms=1500");
                }
                int peak = 0;
                for (int i = 0; i < 20; i++) {
                    Thread.sleep(50);
                    peak = Math.max(peak, shared.getActiveCount());
                }
                for (Socket s : sockets) {
                    assertEquals(200, TestServer.readResponse(s.getInputStream()).status());
                }
                System.out.println("[shared-executor] " + protocol + (tls == null ? "" : " over TLS") + ": " + BLOCKED +
                        " blocked requests on new " +
                        "connections, the executor's activeCount peaked at " + peak);
                assertTrue(peak >= BLOCKED, protocol + ": the executor's activeCount peaked at " + peak);
                if (protocol.equals(HYBRID) && tls == null) {
                    String line = startLine.settings();
                    for (String expected : new String[] { "offLoopExecutor=tomcatThreadPool (", "maxThreads=150",
                            "connector threads, threads=" }) {
                        assertTrue(line.contains(expected), "missing [" + expected + "] in: " + line);
                    }
                }
            } finally {
                startLine.close();
                for (Socket s : sockets) {
                    s.close();
                }
                try {
                    tomcat.stop();
                    tomcat.destroy();
                } finally {
                    TempDirs.deleteRecursively(base.toPath());
                }
            }
        }
    }

    private static Socket connect(int port, Tls tls) throws IOException {
        if (tls != null) {
            return TlsKeys.connect(port, tls.client(), null, 20000);
        }
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(20000);
        return s;
    }
}
