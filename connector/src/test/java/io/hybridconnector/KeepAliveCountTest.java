package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

/**
 * Tomcat's {@code ThreadPool} MBean attribute {@code keepAliveCount} (Spring Boot's
 * {@code tomcat.connections.keepalive.current}) means on ours what it means on stock NIO: connections open and waiting
 * for their next request. Issue 39 item 8: ours read 0 with 10 such connections where stock read 10, because it
 * counted only connections that had finished a request, not those still waiting for their first. Stock NIO and ours
 * in the same body, read over JMX as Micrometer reads it.
 */
class KeepAliveCountTest {

    private static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    private static final String HYBRID = HybridHttp11Protocol.class.getName();
    private static final int CONNECTIONS = 10;

    @Test
    void tenKeepAliveConnectionsCountAsOnStockNio() throws Exception {
        Map<String, List<Integer>> counts = new LinkedHashMap<>();
        for (String protocol : new String[] { NIO, HYBRID }) {
            List<Integer> seen = new ArrayList<>();
            counts.put(protocol, seen);
            try (TestServer server = new TestServer(protocol)) {
                ObjectName pool = threadPoolMBean(server.port);
                List<Socket> clients = new ArrayList<>();
                try {
                    // Connected, no request sent yet: waiting for the first one.
                    for (int i = 0; i < CONNECTIONS; i++) {
                        clients.add(server.connect());
                    }
                    seen.add(await(pool, CONNECTIONS));
                    // Each served one request and kept open: waiting for the next one.
                    for (Socket s : clients) {
                        assertEquals(200, TestServer.get(s, "/size?kb=0.1").status());
                    }
                    seen.add(await(pool, CONNECTIONS));
                    // Half of them closed by their clients.
                    for (int i = 0; i < CONNECTIONS / 2; i++) {
                        clients.remove(0).close();
                    }
                    seen.add(await(pool, CONNECTIONS / 2));
                } finally {
                    for (Socket s : clients) {
                        s.close();
                    }
                }
            }
        }
        assertEquals(counts.get(NIO), counts.get(HYBRID),
                "keepAliveCount with " + CONNECTIONS + " connections waiting for their first request, after one each, "
                        + "then with half closed; stock NIO, then ours: " + counts);
        assertEquals(List.of(CONNECTIONS, CONNECTIONS, CONNECTIONS / 2), counts.get(NIO), "stock NIO: " + counts);
    }

    /** Waits up to 5 s for {@code keepAliveCount} to read {@code expected}; returns the last value read. */
    private static int await(ObjectName pool, int expected) throws Exception {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int value;
        while ((value = (Integer) mbs.getAttribute(pool, "keepAliveCount")) != expected &&
                System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return value;
    }

    /** Tomcat's {@code ThreadPool} MBean of the connector on {@code port}, as Micrometer's TomcatMetrics reads it. */
    private static ObjectName threadPoolMBean(int port) throws Exception {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        for (ObjectName name : mbs.queryNames(new ObjectName("Tomcat:type=ThreadPool,*"), null)) {
            if (Integer.valueOf(port).equals(mbs.getAttribute(name, "localPort"))) {
                return name;
            }
        }
        throw new AssertionError("no ThreadPool MBean for port " + port);
    }
}
