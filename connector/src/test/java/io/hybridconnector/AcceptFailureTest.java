package io.hybridconnector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * Out of file descriptors, the listening socket stays ready and every {@code accept()} fails. Tomcat's acceptor
 * thread backs off (50 ms, doubling to 1.6 s); a loop that accepted for itself tried again at its next select, at
 * once, and spun a CPU for as long as the shortage lasted (issue 16, once {@code acceptMode="loops"} became the
 * default). Each server runs in a child JVM with a low descriptor limit ({@code ulimit -n}), stock NIO beside ours:
 * the CPU the server burns while clients wait that it cannot accept, and that it serves again once descriptors free.
 */
class AcceptFailureTest {

    static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    static final String HYBRID = HybridHttp11Protocol.class.getName();
    private static final int DESCRIPTOR_LIMIT = 100;
    private static final int CLIENTS = 95;

    @Test
    void outOfDescriptorsTheServerBacksOffAndRecovers() throws Exception {
        double stock = cpuWhileOutOfDescriptors(NIO);
        double ours = cpuWhileOutOfDescriptors(HYBRID + " acceptMode loops"); // the default, said for the record
        assertTrue(ours <= Math.max(0.3, stock + 0.2), "CPU seconds burnt in 2 s out of descriptors: ours " + ours
                + ", stock NIO " + stock);
    }

    /** @return the CPU seconds the child's server used over 2 s while clients waited that it could not accept */
    private static double cpuWhileOutOfDescriptors(String protocol) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        String command = "ulimit -n " + DESCRIPTOR_LIMIT + " && exec '" + java + "' -cp '"
                + System.getProperty("java.class.path") + "' '" + Child.class.getName() + "' " + protocol;
        Process child = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        List<Socket> clients = new ArrayList<>();
        Path base = null;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            int port = -1;
            StringBuilder log = new StringBuilder();
            String line;
            while ((line = out.readLine()) != null) {
                log.append(line).append('\n');
                if (line.startsWith("BASE ")) {
                    base = Path.of(line.substring(5).trim());
                } else if (line.startsWith("PORT ")) {
                    port = Integer.parseInt(line.substring(5).trim());
                    break;
                }
            }
            assertTrue(port > 0, protocol + ": the child did not start:\n" + log);
            java.util.concurrent.ConcurrentLinkedDeque<String> tail = new java.util.concurrent.ConcurrentLinkedDeque<>();
            Thread drain = new Thread(() -> {
                try {
                    String l;
                    while ((l = out.readLine()) != null) {
                        // the child's log: read so that it never blocks on a full pipe; its end kept for a failure
                        tail.addLast(l);
                        if (tail.size() > 40) {
                            tail.pollFirst();
                        }
                    }
                } catch (Exception e) {
                    // the child ended
                }
            });
            drain.setDaemon(true);
            drain.start();
            // A server that runs out of descriptors has served before: the classes a request needs are loaded (loading
            // one opens a file, which fails then, and the JVM keeps that failure for good).
            try (Socket warm = new Socket()) {
                warm.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                warm.setSoTimeout(10000);
                assertEquals(200, TestServer.get(warm, "/size?kb=0.1").status());
            }
            for (int i = 0; i < CLIENTS; i++) {
                Socket s = new Socket();
                clients.add(s);
                try {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                } catch (java.net.SocketTimeoutException backlogFull) {
                    break; // the server holds what its descriptors allow and its backlog is full
                }
            }
            Thread.sleep(1000); // the server accepted what its descriptors allow; the rest wait in the backlog
            long pid = child.pid();
            double before = cpuSeconds(pid);
            Thread.sleep(2000);
            double cpu = cpuSeconds(pid) - before;
            for (Socket s : clients) {
                s.close();
            }
            clients.clear();
            // Descriptors free as the server sees the clients go: it serves again.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            int status = 0;
            while (status != 200 && System.nanoTime() < deadline) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                    s.setSoTimeout(5000);
                    status = TestServer.get(s, "/size?kb=0.1").status();
                } catch (Exception e) {
                    Thread.sleep(200);
                }
            }
            assertEquals(200, status, protocol + ": not serving again after the clients left; the server's log ends:\n"
                    + String.join("\n", tail));
            return cpu;
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
        }
    }

    private static double cpuSeconds(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime + stime, clock ticks
    }

    /** The child JVM: one server with the given protocol; prints its port, runs until terminated. */
    static final class Child {

        public static void main(String[] args) throws Exception {
            TestServer server = new TestServer(args[0], java.util.Arrays.copyOfRange(args, 1, args.length));
            System.out.println("BASE " + server.baseDir()); // removed by the parent once this JVM is gone
            System.out.println("PORT " + server.port);
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
