package io.hybridconnector;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A rough side-by-side figure, not a test: keep-alive requests per second over TLS, and full handshakes per second,
 * stock NIO and ours, client and server in one JVM. Run with
 * {@code mvn -o -q -pl connector test -Dtest=TlsBench -Dtls.bench=true}.
 */
@EnabledIfSystemProperty(named = "tls.bench", matches = "true")
class TlsBench {

    @Test
    void keepAliveAndHandshakes(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        TlsKeys keys = new TlsKeys(dir);
        Path ks = keys.serverKeystore("a", "CN=a.test", "a.test", "localhost");
        TlsTest.staticFile = new byte[1];
        StringBuilder report = new StringBuilder("\nTLS bench (req/s; same JVM, loopback)\n");
        for (int round = 0; round < 2; round++) {
            for (String protocol : new String[] { TlsTest.NIO, TlsTest.OURS }) {
                // maxKeepAliveRequests=-1: stock NIO closes every 100th request's connection by default.
                try (TlsTest.Server server = new TlsTest.Server(protocol, false,
                        new String[] { "maxKeepAliveRequests", "-1" }, TlsTest.host("a.test", ks))) {
                    SSLContext ctx = keys.clientContext(null);
                    double small = run(server.port, ctx, 16, "/size?kb=0.1", true, 2000, 5000);
                    double big = run(server.port, ctx, 16, "/size?kb=100", true, 1000, 4000);
                    double hs = run(server.port, ctx, 4, "/size?kb=0.1", false, 1000, 4000);
                    report.append(String.format("round %d %-45s 0.1KB keep-alive %8.0f  100KB keep-alive %7.0f  " +
                            "new connection each %6.0f%n", round, protocol, small, big, hs));
                }
            }
        }
        System.out.println(report);
    }

    private static double run(int port, SSLContext ctx, int clients, String path, boolean keepAlive, long warmMillis,
            long measureMillis) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean counting = new AtomicBoolean();
        LongAdder done = new LongAdder();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Thread t = new Thread(() -> {
                try {
                    SSLSocket s = null;
                    while (!stop.get()) {
                        if (s == null) {
                            s = TlsTest.connect(port, ctx, null);
                        }
                        TestServer.get(s, path);
                        if (counting.get()) {
                            done.increment();
                        }
                        if (!keepAlive) {
                            s.close();
                            s = null;
                        }
                    }
                    if (s != null) {
                        s.close();
                    }
                } catch (Exception e) {
                    if (!stop.get()) {
                        e.printStackTrace();
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        Thread.sleep(warmMillis);
        counting.set(true);
        long start = System.nanoTime();
        Thread.sleep(measureMillis);
        long n = done.sum();
        double seconds = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        for (Thread t : threads) {
            t.join(10000);
        }
        return n / seconds;
    }
}
