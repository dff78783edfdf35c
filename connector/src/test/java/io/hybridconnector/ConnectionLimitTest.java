package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.net.SocketException;

import org.junit.jupiter.api.Test;

/**
 * At {@code maxConnections} the least-recently-used idle keep-alive connection makes room for a new client.
 */
class ConnectionLimitTest {

    @Test
    void newClientEvictsLeastRecentlyUsedIdleConnection() throws Exception {
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), "maxConnections", "3");
                Socket a = server.connect(); Socket b = server.connect(); Socket c = server.connect()) {
            assertEquals(200, TestServer.get(a, "/size?kb=0.1").status());
            Thread.sleep(20);
            assertEquals(200, TestServer.get(b, "/size?kb=0.1").status());
            Thread.sleep(20);
            assertEquals(200, TestServer.get(c, "/size?kb=0.1").status());
            Thread.sleep(20);
            try (Socket d = server.connect()) {
                long start = System.nanoTime();
                assertEquals(200, TestServer.get(d, "/size?kb=0.1").status());
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(millis < 1000, "the new client waited " + millis + " ms");
            }
            assertTrue(closedByServer(a), "the least-recently-used connection was not closed");
            assertEquals(200, TestServer.get(c, "/size?kb=0.1").status());
        }
    }

    /** A socket whose options cannot be set is closed at once and gives its place back, as with stock NIO. */
    @Test
    void socketThatFailsSetUpIsClosedAndNotCounted() throws Exception {
        try (TestServer server = new TestServer(HybridHttp11Protocol.class.getName(), "maxConnections", "2",
                "socket.txBufSize", "0")) {
            for (int i = 0; i < 3; i++) {
                try (Socket s = server.connect()) {
                    TestServer.sendGet(s, "/size?kb=0.1");
                    assertTrue(closedByServer(s), "connection " + i + " was left open");
                }
            }
            // Three clients got through a limit of two; what is left is the acceptor's place for the next client.
            assertTrue(server.hybrid().getConnectionCount() <= 1, "leaked: " + server.hybrid().getConnectionCount());
        }
    }

    private static boolean closedByServer(Socket s) throws Exception {
        s.setSoTimeout(2000);
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketException reset) {
            return true;
        }
    }
}
