package io.hybridconnector.reliability;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.hybridconnector.bench.harness.cpu.Pinning;
import io.hybridconnector.bench.harness.measure.ProcessUsage;
import io.hybridconnector.bench.harness.tomcat.SideBySideTomcat;
import io.hybridconnector.reliability.net.ProcessFds;
import io.hybridconnector.reliability.net.TcpTable;

/**
 * One real Tomcat distribution with stock NIO and ours on two ports (bench/harness's {@link SideBySideTomcat}), its JVM
 * opened to JMX on loopback, and the snapshots the scenarios compare. Used from the harness's main thread; {@link
 * #snapshot} also from the soak's sampler.
 */
public final class ServerUnderTest implements AutoCloseable {

    /** What every scenario's Tomcat gets: a 1 GB heap as in the main job, and the shaded allocator's leak checks. */
    private static final List<String> BASE_JVM_OPTIONS = List.of("-Xms1g", "-Xmx1g",
            "-Dio.hybridconnector.shaded.netty.leakDetection.level=paranoid",
            "-Dio.netty.leakDetection.level=paranoid");

    /**
     * Where both connectors listen and what the Host holds besides the samples. Immutable.
     *
     * @param address        the connectors' bind address, which the clients connect to
     * @param hostAttributes added to the Host element verbatim
     * @param hostElements   put inside the Host element verbatim (a {@code <Valve>})
     */
    public record Layout(String address, String hostAttributes, String hostElements) {

        /** Every server's but two of the faults scenario's: loopback, a plain Host. */
        public static final Layout LOOPBACK = new Layout("127.0.0.1", "", "");
    }

    private final SideBySideTomcat tomcat;
    private final JmxClient jmx;
    private final long pid;
    private final String address;

    private ServerUnderTest(SideBySideTomcat tomcat, JmxClient jmx, String address) {
        this.tomcat = tomcat;
        this.jmx = jmx;
        this.pid = tomcat.pid();
        this.address = address;
    }

    /**
     * Starts a fresh CATALINA_BASE under {@code lab.runDir()/name} and waits until both connectors answer.
     *
     * @param stockAttributes extra attributes of stock's Connector element, verbatim
     * @param ourAttributes   extra attributes of ours
     */
    public static ServerUnderTest start(Lab lab, String name, String stockAttributes, String ourAttributes)
            throws IOException, InterruptedException {
        return start(lab, name, stockAttributes, ourAttributes, Layout.LOOPBACK, SideBySideTomcat.Protocols.HTTP_1_1);
    }

    /** As {@link #start(Lab, String, String, String)}, with the connectors and the Host as {@code layout} says. */
    public static ServerUnderTest start(Lab lab, String name, String stockAttributes, String ourAttributes,
            Layout layout) throws IOException, InterruptedException {
        return start(lab, name, stockAttributes, ourAttributes, layout, SideBySideTomcat.Protocols.HTTP_1_1);
    }

    /**
     * As {@link #start(Lab, String, String, String)}, each connector also speaking what {@code protocols} asks (h2c
     * on the plain port, a TLS twin on a port of its own): both are then the side's, in {@link #ports} and in the
     * per-connector figures of {@link #snapshot}.
     */
    public static ServerUnderTest start(Lab lab, String name, String stockAttributes, String ourAttributes,
            SideBySideTomcat.Protocols protocols) throws IOException, InterruptedException {
        return start(lab, name, stockAttributes, ourAttributes, Layout.LOOPBACK, protocols);
    }

    private static ServerUnderTest start(Lab lab, String name, String stockAttributes, String ourAttributes,
            Layout layout, SideBySideTomcat.Protocols protocols) throws IOException, InterruptedException {
        int jmxPort = freePort();
        List<String> jvm = new ArrayList<>(BASE_JVM_OPTIONS);
        jvm.addAll(List.of(JmxClient.agentOptions(jmxPort).split(" ")));
        SideBySideTomcat.Config config = new SideBySideTomcat.Config(lab.catalinaHome(), lab.connectorJar(), lab.samplesWar(),
                lab.runDir().resolve(name), Path.of(System.getProperty("java.home")), jvm, stockAttributes,
                (lab.ourAttributes() + " " + ourAttributes).trim(), Pinning.detect(false, 0, 1), protocols, layout.address(), layout.hostAttributes(),
                layout.hostElements()).runningAs(lab.runAs());
        SideBySideTomcat tomcat = new SideBySideTomcat(config);
        tomcat.start("/samples/size?kb=0.1", Duration.ofSeconds(90));
        return new ServerUnderTest(tomcat, JmxClient.connect(jmxPort), layout.address());
    }

    public int port(Side side) {
        return side == Side.STOCK ? tomcat.stockPort() : tomcat.ourPort();
    }

    public InetSocketAddress address(Side side) {
        return new InetSocketAddress(address, port(side));
    }

    /** The side's TLS twin, or -1 when the server was started without TLS. */
    public int tlsPort(Side side) {
        return side == Side.STOCK ? tomcat.stockTlsPort() : tomcat.ourTlsPort();
    }

    /** Every port of the side's connectors: the plain one, and the TLS twin when there is one. */
    public List<Integer> ports(Side side) {
        return tlsPort(side) < 0 ? List.of(port(side)) : List.of(port(side), tlsPort(side));
    }

    public long pid() {
        return pid;
    }

    public SideBySideTomcat tomcat() {
        return tomcat;
    }

    /**
     * Waits until no connector of the server holds a connection, at most {@code timeout}: the clients that checked
     * the server (the readiness probe, a protocol check) are the JDK's HttpClient, which keeps idle connections until
     * the server closes them; a baseline taken before that counts their fds.
     *
     * @return the connections still open when it returned, as {@link #connectionsByPort} (empty: idle)
     */
    public Map<String, Long> awaitNoConnections(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Map<String, Long> open = connectionsByPort();
            if (open.isEmpty() || System.nanoTime() > deadline) {
                return open;
            }
            Thread.sleep(500);
        }
    }

    /**
     * Client connections on each connector of the server that has any, keyed by side, kind and port (e.g. {@code ours
     * TLS 41234}): when a count does not come back, which connector holds the rest ({@link #clientConnections}).
     */
    public Map<String, Long> connectionsByPort() throws IOException {
        Map<String, Long> open = new LinkedHashMap<>();
        for (Side side : Side.values()) {
            for (int port : ports(side)) {
                long n = clientConnections(port);
                if (n > 0) {
                    open.put(side.label() + (port == tlsPort(side) ? " TLS " : " plain ") + port, n);
                }
            }
        }
        return open;
    }

    /**
     * Resources now; {@code afterGc} runs two full GCs first so that heap and direct memory show what is live. The
     * per-connector figures (threads naming the port, connections, write-behind) add up all of the side's {@link
     * #ports}.
     */
    /**
     * Tomcat's {@code connectionCount} of the connector on {@code port}, less the one an acceptor thread counts before
     * each {@code accept()} (stock NIO; ours only with {@code acceptMode="acceptor"}): the clients' connections.
     */
    private long clientConnections(int port) throws IOException {
        long n = jmx.threadPool(port, "connectionCount");
        return n > 0 && jmx.hasAcceptorThread(port) ? n - 1 : n;
    }

    public Snapshot snapshot(Side side, boolean afterGc) throws IOException {
        if (afterGc) {
            jmx.gc();
        }
        int connectorThreads = 0;
        long connections = 0;
        long writeBehind = -1;
        for (int port : ports(side)) {
            connectorThreads += jmx.threadsNaming(port);
            connections += clientConnections(port);
            long w = jmx.ours(port, "WriteBehindBytesNow");
            writeBehind = w < 0 ? writeBehind : Math.max(0, writeBehind) + w;
        }
        return new Snapshot(count(Path.of("/proc", Long.toString(pid), "task")), connectorThreads,
                count(Path.of("/proc", Long.toString(pid), "fd")), rssKb(), jmx.heapUsed(), jmx.directBytes(),
                connections, writeBehind);
    }

    public long ourCounter(String attribute) throws IOException {
        return jmx.ours(tomcat.ourPort(), attribute);
    }

    /** Tomcat's {@code currentThreadsBusy} of the connector: threads running a request now. */
    public long busyThreads(Side side) throws IOException {
        return jmx.threadPool(port(side), "currentThreadsBusy");
    }

    /** CPU time the server's JVM has used so far, all threads (-1 if /proc cannot be read). */
    public double cpuSeconds() {
        return ProcessUsage.of(pid).cpuSeconds();
    }

    /** Connections on the connector's port that the server holds (their socket among its fds), from any peer. */
    public int socketsHeld(Side side) throws IOException {
        Set<Long> inodes = TcpTable.socketInodes(pid);
        int n = 0;
        for (TcpTable.Socket s : TcpTable.read()) {
            if (s.local().getPort() == port(side) && s.state() != TcpTable.LISTEN && inodes.contains(s.inode())) {
                n++;
            }
        }
        return n;
    }

    /**
     * Remote ports of the connections from {@code peer} on the connector's port that the server still holds (their
     * socket among its fds): {@link TcpTable} tells which connections a vanished client left open.
     */
    public Set<Integer> peerPortsHeld(Side side, String peer) throws IOException {
        Set<Long> inodes = TcpTable.socketInodes(pid);
        Set<Integer> ports = new TreeSet<>();
        for (TcpTable.Socket s : TcpTable.read()) {
            if (s.local().getPort() == port(side) && s.state() != TcpTable.LISTEN && inodes.contains(s.inode())
                    && s.remote().getAddress().getHostAddress().equals(peer)) {
                ports.add(s.remote().getPort());
            }
        }
        return ports;
    }

    /** Lines of the server's logs that report a leak of pooled buffers (the allocator's PARANOID detector). */
    public List<String> leakReports() throws IOException {
        return tomcat.logs().lines().filter(l -> l.contains("LEAK:")).toList();
    }

    /** Lines of the server's logs at SEVERE or with an exception that the scenario did not expect, for the report. */
    public long logLinesContaining(String text) throws IOException {
        return tomcat.logs().lines().filter(l -> l.contains(text)).count();
    }

    /**
     * Log lines that contain every one of {@code texts}, each counted once: Tomcat writes its log lines both to
     * {@code catalina.DATE.log} and to the console file, word for word.
     */
    public long distinctLogLines(String... texts) throws IOException {
        return tomcat.logs().lines().filter(l -> Stream.of(texts).allMatch(l::contains)).distinct().count();
    }

    public long rssKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
            }
        }
        return -1;
    }

    /**
     * Open fds by kind ({@code socket}, {@code anon_inode:[eventpoll]}, {@code anon_inode:[eventfd]}, {@code pipe},
     * files by their path): a delta by kind says which object leaked.
     */
    public Map<String, Integer> fdKinds() throws IOException {
        Map<String, Integer> kinds = new TreeMap<>();
        for (String link : ProcessFds.links(pid)) {
            String kind = link.startsWith("socket:") ? "socket" : link.startsWith("pipe:") ? "pipe"
                    : link.startsWith("/") ? "file" : link;
            kinds.merge(kind, 1, Integer::sum);
        }
        return kinds;
    }

    /** {@code after - before} per kind, only the kinds that changed, e.g. {@code socket +3, anon_inode:[eventfd] +1}. */
    public static String fdDelta(Map<String, Integer> before, Map<String, Integer> after) {
        Map<String, Integer> d = new TreeMap<>();
        for (String k : after.keySet()) {
            d.put(k, after.get(k) - before.getOrDefault(k, 0));
        }
        for (String k : before.keySet()) {
            d.putIfAbsent(k, -before.get(k));
        }
        StringBuilder sb = new StringBuilder();
        d.forEach((k, v) -> {
            if (v != 0) {
                sb.append(sb.length() == 0 ? "" : ", ").append(k).append(v > 0 ? " +" : " ").append(v);
            }
        });
        return sb.length() == 0 ? "none" : sb.toString();
    }

    private static int count(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return (int) entries.count();
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Stops Tomcat with {@code catalina.sh stop}; see {@link SideBySideTomcat#close}. */
    @Override
    public void close() throws IOException, InterruptedException {
        try {
            jmx.close();
        } catch (IOException ignored) {
            // the server may already be gone (graceful-stop scenario)
        }
        tomcat.close();
    }
}
