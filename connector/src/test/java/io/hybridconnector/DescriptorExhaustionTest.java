package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * Out of file descriptors, a new client is served by closing the least recently used idle keep-alive connection, as at
 * {@code maxConnections} (issue 39 item 4). Before, with the default {@code maxConnections} (8192) above what the
 * descriptor limit allows and a client holding more keep-alive connections than that, every accept failed ("Too many
 * open files"), the idle connections stayed for ever (no {@code keepAliveTimeout}), and every new client timed out.
 * Stock NIO serves new clients once its {@code keepAliveTimeout} closed idle connections (2 s here, to be quick).
 * <p>
 * Each server runs in a child JVM with a low descriptor limit ({@code ulimit -n}, soft and hard), stock NIO and ours
 * in the same body: the client holds more keep-alive connections than the server's descriptors allow, each having sent
 * a request, then a new client asks for a page.
 */
class DescriptorExhaustionTest {

    static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    static final String HYBRID = HybridHttp11Protocol.class.getName();
    private static final int DESCRIPTOR_LIMIT = 200;
    /** Connections the client holds beyond what the server's descriptors allow: they wait in its backlog (100). */
    private static final int BEYOND = 30;
    private static final int STOCK_KEEP_ALIVE_MILLIS = 2000;

    @Test
    void outOfDescriptorsANewClientIsServedByClosingTheLeastRecentlyUsedIdleConnection() throws Exception {
        Run stock = run(NIO, "keepAliveTimeout", Integer.toString(STOCK_KEEP_ALIVE_MILLIS));
        Run ours = run(HYBRID); // defaults: maxConnections 8192, keepAliveTimeout infinite, acceptMode loops
        Run acceptor = run(HYBRID, "acceptMode", "acceptor"); // Tomcat's acceptor thread accepts
        String figures = "new client served after: stock NIO " + stock.newClientMillis + " ms (keepAliveTimeout " +
                STOCK_KEEP_ALIVE_MILLIS + " ms), ours " + ours.newClientMillis + " ms, ours with acceptMode=acceptor "
                + acceptor.newClientMillis + " ms; requests answered before it came of the client's " +
                (DESCRIPTOR_LIMIT + BEYOND) + "-odd connections: stock " + stock.held + ", ours " + ours.held +
                ", ours with the acceptor " + acceptor.held;
        System.out.println(figures);
        System.out.println("ours' warnings:\n" + warnings(ours.log) + "\nwith the acceptor:\n" + warnings(acceptor.log));
        assertTrue(stock.newClientMillis >= 0, "stock NIO did not serve the new client: " + figures + "\n" + stock.log);
        assertTrue(ours.newClientMillis >= 0, "ours did not serve the new client (out of descriptors, nothing "
                + "closed an idle connection): " + figures + "\nits log ends:\n" + ours.log);
        // Ours waits for no timeout: the client is served as soon as the idle connection is closed.
        assertTrue(ours.newClientMillis <= Math.max(1000, stock.newClientMillis), figures);
        assertTrue(ours.lruClosed, "ours: the least recently used connection is still open; " + figures + "\n" + ours.log);
        assertTrue(ours.mruServes, "ours: the most recently used connection was closed; " + figures + "\n" + ours.log);
        assertTrue(acceptor.newClientMillis >= 0 && acceptor.newClientMillis <= Math.max(1000, stock.newClientMillis),
                "acceptMode=acceptor: " + figures + "\nits log ends:\n" + acceptor.log);
        assertTrue(acceptor.lruClosed && acceptor.mruServes, "acceptMode=acceptor: least recently used closed "
                + acceptor.lruClosed + ", most recently used serves " + acceptor.mruServes + "; its log:\n" + acceptor.log);
        // A WARN at start: maxConnections exceeds what the descriptor limit allows, and what happens instead.
        assertTrue(ours.log.contains("maxConnections=8192") && ours.log.contains(DESCRIPTOR_LIMIT + " open files")
                && ours.log.contains("least recently used idle keep-alive connection is closed"),
                "no start WARN about maxConnections and the descriptor limit in:\n" + ours.log);
    }

    private static String warnings(String log) {
        StringBuilder w = new StringBuilder();
        String[] lines = log.split("\n");
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].startsWith("WARNING") || lines[i].startsWith("SEVERE")) {
                w.append(lines[i - 1]).append('\n').append(lines[i]).append('\n');
            }
        }
        return w.toString();
    }

    /** What one server did. */
    private static final class Run {
        /** Connections of the client whose request was answered before the new client came. */
        int held;
        /** How long the new client waited for its response; -1: not served within 15 s. */
        long newClientMillis = -1;
        /** The first connection the client held (the least recently used) was closed by the server. */
        boolean lruClosed;
        /** The last connection the client held still serves a request. */
        boolean mruServes;
        String log = "";
    }

    private static Run run(String protocol, String... attributes) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        StringBuilder command = new StringBuilder("ulimit -n " + DESCRIPTOR_LIMIT + " && exec '" + java + "' -cp '" +
                System.getProperty("java.class.path") + "' '" + Child.class.getName() + "' " + protocol);
        for (String a : attributes) {
            command.append(' ').append(a);
        }
        Process child = new ProcessBuilder("bash", "-c", command.toString()).redirectErrorStream(true).start();
        List<Socket> clients = new ArrayList<>();
        Path base = null;
        Run run = new Run();
        ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            int port = -1;
            int descriptors = -1;
            String line;
            while ((line = out.readLine()) != null) {
                log.add(line);
                if (line.startsWith("BASE ")) {
                    base = Path.of(line.substring(5).trim());
                } else if (line.startsWith("FDS ")) {
                    descriptors = Integer.parseInt(line.substring(4).trim());
                } else if (line.startsWith("PORT ")) {
                    port = Integer.parseInt(line.substring(5).trim());
                    break;
                }
            }
            assertTrue(port > 0 && descriptors > 0, protocol + ": the child did not start:\n" + String.join("\n", log));
            Thread drain = new Thread(() -> {
                try {
                    String l;
                    while ((l = out.readLine()) != null) {
                        log.add(l); // read so that the child never blocks on a full pipe
                    }
                } catch (IOException e) {
                    // the child ended
                }
            });
            drain.setDaemon(true);
            drain.start();
            // A server that runs out of descriptors has served before: the classes a request needs are loaded.
            try (Socket warm = connect(port)) {
                assertEquals(200, TestServer.get(warm, "/size?kb=0.1").status());
            }
            // The client holds more keep-alive connections than the server's descriptors allow, each with a request.
            int holding = DESCRIPTOR_LIMIT - descriptors + BEYOND;
            for (int i = 0; i < holding; i++) {
                Socket s = connect(port);
                clients.add(s);
                TestServer.sendGet(s, "/size?kb=0.1");
            }
            for (Socket s : clients) {
                try {
                    s.setSoTimeout(50);
                    TestServer.readResponse(s.getInputStream());
                    run.held++;
                } catch (IOException e) {
                    break; // in the backlog: the server is out of descriptors
                }
            }
            boolean lastAnswered = run.held == holding;
            // A new client asks for a page while the server holds what its descriptors allow.
            long start = System.nanoTime();
            try (Socket fresh = new Socket()) {
                fresh.connect(new InetSocketAddress("127.0.0.1", port), 15000);
                fresh.setSoTimeout(15000);
                if (TestServer.get(fresh, "/size?kb=0.1").status() == 200) {
                    run.newClientMillis = (System.nanoTime() - start) / 1_000_000;
                }
            } catch (IOException e) {
                log.add("new client: " + e);
            }
            if (protocol.equals(HYBRID)) {
                run.lruClosed = closedByServer(clients.get(0));
                Socket last = clients.get(clients.size() - 1);
                try {
                    last.setSoTimeout(5000);
                    if (!lastAnswered) {
                        TestServer.readResponse(last.getInputStream()); // its first response
                    }
                    run.mruServes = TestServer.get(last, "/size?kb=0.1").status() == 200;
                } catch (IOException e) {
                    log.add("most recently used connection: " + e);
                }
            }
            return run;
        } finally {
            for (Socket s : clients) {
                s.close();
            }
            child.destroy();
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly().waitFor();
            }
            if (base != null) {
                TempDirs.deleteRecursively(base); // the child is gone, whatever ended it
            }
            run.log = String.join("\n", log);
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(10000);
        return s;
    }

    /** @return whether the server closed {@code s}: end of stream or a reset once its responses are read */
    private static boolean closedByServer(Socket s) throws IOException {
        s.setSoTimeout(2000);
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    /** The child JVM: one server with the given protocol and attributes; prints its port, runs until terminated. */
    static final class Child {

        public static void main(String[] args) throws Exception {
            // Here the connector's classes are files in a directory, not in a jar whose descriptor stays open: loading
            // one the first time opens a file, which fails once descriptors run out, and the JVM keeps that failure
            // for good. A server in production loads them from the connector's jar. Load them all now.
            preload(HybridHttp11Protocol.class, "");
            preload(TestServer.class, TestServer.class.getName());
            TestServer server = new TestServer(args[0], Arrays.copyOfRange(args, 1, args.length));
            System.out.println("BASE " + server.baseDir()); // removed by the parent once this JVM is gone
            System.out.println("FDS " + Descriptors.count());
            System.out.println("PORT " + server.port);
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }

        /** Loads (without initialising) the classes beside {@code anchor} whose names start with {@code prefix}. */
        private static void preload(Class<?> anchor, String prefix) throws Exception {
            Path root = Paths.get(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!java.nio.file.Files.isDirectory(root)) {
                return; // a jar: its classes load without opening a file
            }
            List<String> names = new ArrayList<>();
            try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(root)) {
                files.filter(f -> f.toString().endsWith(".class")).forEach(f -> {
                    String name = root.relativize(f).toString().replace('/', '.');
                    names.add(name.substring(0, name.length() - ".class".length()));
                });
            }
            for (String name : names) {
                if (name.startsWith(prefix)) {
                    try {
                        Class.forName(name, false, anchor.getClassLoader());
                    } catch (LinkageError | ClassNotFoundException e) {
                        // optional dependencies absent here: never loaded by this server either
                    }
                }
            }
        }
    }
}
