package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardThreadExecutor;
import org.apache.catalina.startup.Tomcat;

import org.junit.jupiter.api.Test;

/**
 * A shared {@code <Executor>} named on the connector ({@code executor="tomcatThreadPool"}; embedded: a
 * {@code StandardThreadExecutor} added to the service and set on the protocol, which is what Tomcat's
 * {@code ConnectorCreateRule} does), issue 39 item 3's case: 20 requests blocked at once, each on a new connection.
 * Stock NIO runs all 20 on the executor (its {@code activeCount} 20). Ours starts each inline on a loop (nothing says it
 * will block); the loop moves away when it blocks and the request finishes on the connector's own thread, so the
 * executor counts none of them; only the next requests of those connections, tasks and time-sliced runs go to it. The
 * start line must say so: the executor by its name and {@code maxThreads}, and what stays on the connector's threads
 * (it said {@code offLoopExecutor=StandardThreadExecutor} and {@code threads=200}, as if the executor were unused).
 */
class SharedExecutorTest {

    private static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    private static final String HYBRID = HybridHttp11Protocol.class.getName();
    private static final int BLOCKED = 20;

    @Test
    void aSharedExecutorIsNamedOnTheStartLineWithWhatRunsOnIt() throws Exception {
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
                connector.getProtocolHandler().setExecutor(shared);
                tomcat.getService().addConnector(connector);
                tomcat.setConnector(connector);
                Context ctx = tomcat.addContext("", base.getAbsolutePath());
                Tomcat.addServlet(ctx, "block", new TestServer.BlockServlet());
                ctx.addServletMappingDecoded("/block", "block");
                tomcat.start();
                int port = connector.getLocalPort();

                for (int i = 0; i < BLOCKED; i++) {
                    Socket s = new Socket();
                    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                    s.setSoTimeout(20000);
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
                System.out.println("[shared-executor] " + protocol + ": " + BLOCKED + " blocked requests on new " +
                        "connections, the executor's activeCount peaked at " + peak);
                if (protocol.equals(NIO)) {
                    assertEquals(BLOCKED, peak, "stock runs every request on the executor");
                } else {
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
}
