package io.hybridconnector.reliability.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import io.hybridconnector.reliability.Lab;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.Snapshot;
import io.hybridconnector.reliability.client.RawConnection;
import io.hybridconnector.reliability.client.VanishingClient;
import io.hybridconnector.reliability.client.VanishingClient.Kind;
import io.hybridconnector.reliability.net.ClientNamespace;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 4's clients that vanish without a FIN: a {@link VanishingClient} process in the {@link ClientNamespace}
 * opens an idle keep-alive connection, one stopped mid-request and one stopped mid-response to each connector; then
 * the namespace's link is cut and the process killed, so that no FIN and no reset reaches the server. Which
 * connections each connector cuts, and when, is read from the kernel's socket table (which of them the server
 * process still holds), since neither the client nor Tomcat's count can tell. Both connectors at once: the cut is
 * the same instant for both. A connection still held at the end (ours keeps idle keep-alive connections without a
 * deadline, by design) is then shown bounded: fresh clients fill the connector to its maxConnections, and the moment
 * the server lets the vanished one go is reported. Main thread, and one thread reading the client's output.
 */
final class VanishedClients {

    /** How long after the cut the server's sockets are watched, in connectionTimeouts. */
    private static final int WATCH_TIMEOUTS = 3;
    private static final long POLL_MILLIS = 100;
    /** Fresh connections tried beyond maxConnections (at most 64) before the eviction is called absent. */
    private static final int EVICTION_SLACK = 8;
    private static final int EVICTION_MAX_TRIED = 64;

    /** One of the client's connections, and when the server let it go (epoch ms; 0 while held). */
    private static final class Connection {
        final Side side;
        final Kind kind;
        final int clientPort;
        final long lastByteMillis;
        long cutMillis;

        Connection(Side side, Kind kind, int clientPort, long lastByteMillis) {
            this.side = side;
            this.kind = kind;
            this.clientPort = clientPort;
            this.lastByteMillis = lastByteMillis;
        }
    }

    /**
     * One connector at one instant: its snapshot, the vanished client's connections the server still holds on its
     * port, and its threads running a request (Tomcat's {@code currentThreadsBusy}).
     */
    record Reading(Snapshot snapshot, int fromClient, long busy) {

        static Reading of(ServerUnderTest server, Side side, boolean afterGc) throws IOException {
            return new Reading(server.snapshot(side, afterGc), server.peerPortsHeld(side,
                    ClientNamespace.CLIENT_ADDRESS).size(), server.busyThreads(side));
        }
    }

    /**
     * What one connector showed. Instants: before the client, right after the cut, after the watch, and at the end
     * (after the eviction step).
     *
     * @param cutSeconds per kind, seconds from the client's last byte to the server's close; {@code null}: held
     * @param evicted    how a connection held at the end was let go; "" when none was held
     */
    record Outcome(Reading before, Reading rightAfter, Reading after, Reading end, Map<Kind, Double> cutSeconds,
            String evicted) {
    }

    /** What both connectors showed, and the whole server's fds at the end and by kind from before the client. */
    record Result(Map<Side, Outcome> sides, int fdsEnd, String fdDelta, long watchSeconds) {
    }

    private VanishedClients() {
    }

    /**
     * Runs both connectors at once; {@code maxConnections} per side is what the server was given (for the eviction
     * step), {@code timeoutMillis} its connectionTimeout.
     */
    static Result run(Lab lab, ServerUnderTest server, ClientNamespace ns, long timeoutMillis,
            Map<Side, Integer> maxConnections) throws Exception {
        Map<Side, Reading> before = readAll(server, true);
        Map<String, Integer> fdsBefore = server.fdKinds();
        List<Connection> connections = new ArrayList<>();
        Process client = startClient(server, ns, connections);
        long cutAt;
        try {
            ns.cutLink();
            cutAt = System.currentTimeMillis();
        } finally {
            client.destroyForcibly();
            client.waitFor(10, TimeUnit.SECONDS);
        }
        lab.log("  vanishing client: link cut, client killed");
        Thread.sleep(300);
        Map<Side, Reading> rightAfter = readAll(server, false);
        long watchMillis = WATCH_TIMEOUTS * timeoutMillis;
        watch(server, connections, cutAt + watchMillis);
        Map<Side, Reading> after = readAll(server, true);
        Map<Side, Outcome> out = new EnumMap<>(Side.class);
        for (Side side : Side.values()) {
            String evicted = evict(server, side, connections, maxConnections.get(side));
            Thread.sleep(1_000);
            Reading end = Reading.of(server, side, true);
            Map<Kind, Double> cut = new EnumMap<>(Kind.class);
            for (Connection c : connections) {
                if (c.side == side) {
                    cut.put(c.kind, c.cutMillis == 0 ? null : (c.cutMillis - c.lastByteMillis) / 1000.0);
                }
            }
            Outcome o = new Outcome(before.get(side), rightAfter.get(side), after.get(side), end, cut, evicted);
            lab.log("  %s vanished clients: held right after the cut %d of %d; cut after (s) %s; %s; end: %s",
                    side.label(), o.rightAfter.fromClient(), Kind.values().length, cut, evicted,
                    end.snapshot().brief());
            out.put(side, o);
        }
        Map<String, Integer> fdsEnd = server.fdKinds();
        return new Result(out, sum(fdsEnd), ServerUnderTest.fdDelta(fdsBefore, fdsEnd), watchMillis / 1000);
    }

    private static Map<Side, Reading> readAll(ServerUnderTest server, boolean afterGc) throws IOException {
        Map<Side, Reading> r = new EnumMap<>(Side.class);
        for (Side side : Side.values()) {
            r.put(side, Reading.of(server, side, afterGc));
        }
        return r;
    }

    private static int sum(Map<String, Integer> fdKinds) {
        return fdKinds.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Starts the client in the namespace and waits for its connections; kills it if they do not all come. */
    private static Process startClient(ServerUnderTest server, ClientNamespace ns, List<Connection> connections)
            throws IOException, InterruptedException {
        List<String> command = ns.inside(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:-UsePerfData", "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                VanishingClient.class.getName(), ClientNamespace.SERVER_ADDRESS,
                Integer.toString(server.port(Side.STOCK)), Integer.toString(server.port(Side.OURS))));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process was killed
            }
            lines.add("<end>");
        }, "vanishing-client-output");
        reader.setDaemon(true);
        reader.start();
        StringBuilder seen = new StringBuilder();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null || line.equals("<end>")) {
                p.destroyForcibly();
                throw new IOException("the vanishing client did not get its connections ready: " + seen);
            }
            if (line.equals("ready")) {
                return p;
            }
            seen.append(line).append("; ");
            String[] f = line.split(" ");
            if (f.length == 4) {
                try {
                    Kind kind = Kind.valueOf(f[0]);
                    Side side = Integer.parseInt(f[1]) == server.port(Side.STOCK) ? Side.STOCK : Side.OURS;
                    connections.add(new Connection(side, kind, Integer.parseInt(f[2]), Long.parseLong(f[3])));
                } catch (IllegalArgumentException notOurs) {
                    // a JVM warning: kept in "seen" only
                }
            }
        }
    }

    /** Polls the server's sockets until every connection is cut or {@code untilMillis} (epoch) passes. */
    private static void watch(ServerUnderTest server, List<Connection> connections, long untilMillis)
            throws IOException, InterruptedException {
        while (System.currentTimeMillis() < untilMillis) {
            boolean anyHeld = false;
            for (Side side : Side.values()) {
                Set<Integer> held = server.peerPortsHeld(side, ClientNamespace.CLIENT_ADDRESS);
                long now = System.currentTimeMillis();
                for (Connection c : connections) {
                    if (c.side == side && c.cutMillis == 0) {
                        if (held.contains(c.clientPort)) {
                            anyHeld = true;
                        } else {
                            c.cutMillis = now;
                        }
                    }
                }
            }
            if (!anyHeld) {
                return;
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    private static List<Connection> held(ServerUnderTest server, Side side, List<Connection> connections)
            throws IOException {
        Set<Integer> ports = server.peerPortsHeld(side, ClientNamespace.CLIENT_ADDRESS);
        return connections.stream().filter(c -> c.side == side && ports.contains(c.clientPort)).toList();
    }

    /**
     * When the connector still holds a vanished connection: fresh clients open keep-alive connections from the host,
     * one request each, until the server lets the vanished ones go or {@code maxConnections} plus a few are open.
     * Says after which fresh connection that happened; "" when nothing was held.
     */
    private static String evict(ServerUnderTest server, Side side, List<Connection> connections, int maxConnections)
            throws IOException {
        if (held(server, side, connections).isEmpty()) {
            return "";
        }
        int heldBefore = held(server, side, connections).size();
        List<RawConnection> fresh = new ArrayList<>();
        int tries = Math.min(maxConnections, EVICTION_MAX_TRIED) + EVICTION_SLACK;
        try {
            for (int i = 1; i <= tries; i++) {
                RawConnection c = RawConnection.open(server.address(side));
                fresh.add(c);
                c.write("GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n\r\n");
                RawConnection.Response r = c.read(5_000);
                if (!r.complete() || r.status() != 200) {
                    return heldBefore + " held; fresh connection " + i + " got " + r.status() + " (" + r.error()
                            + "), the vanished ones still held";
                }
                if (held(server, side, connections).isEmpty()) {
                    return "let go when fresh keep-alive connection " + i + " came (then " + server.socketsHeld(side)
                            + " connections on the port; maxConnections=" + maxConnections + "); every fresh one got"
                            + " 200";
                }
            }
            return "still held after " + tries + " fresh keep-alive connections"
                    + " (maxConnections=" + maxConnections + ")";
        } finally {
            fresh.forEach(RawConnection::close);
        }
    }

    static void report(Findings f, String name, Result result) {
        Outcome s = result.sides().get(Side.STOCK);
        Outcome o = result.sides().get(Side.OURS);
        String r = "vanished client: ";
        int n = Kind.values().length;
        f.addSame(name, r + "its connections the server still held right after the cut (of " + n + ")",
                s.rightAfter.fromClient(), o.rightAfter.fromClient());
        for (Kind kind : Kind.values()) {
            Double sc = s.cutSeconds.get(kind);
            Double oc = o.cutSeconds.get(kind);
            f.add(name, r + kind.description() + ": cut (s after the client's last byte)", cut(sc, result),
                    cut(oc, result), FaultVerdicts.cut(sc, oc));
        }
        f.add(name, r + "a connection still held at the end: what let it go", s.evicted.isEmpty() ? "none held"
                : s.evicted, o.evicted.isEmpty() ? "none held" : o.evicted, o.evicted.isEmpty()
                        || o.evicted.startsWith("let go") ? "ok" : "worse");
        String when = " before -> right after -> after the watch -> end";
        f.add(name, r + "its connections the server holds" + when, chain(s, Reading::fromClient),
                chain(o, Reading::fromClient), o.end.fromClient() == 0 ? "ok" : "worse");
        f.add(name, r + "connections (client connections)" + when, chain(s, x -> x.snapshot().connections()),
                chain(o, x -> x.snapshot().connections()), FaultVerdicts.leftBehind(s.before.snapshot().connections(),
                        s.end.snapshot().connections(), o.before.snapshot().connections(),
                        o.end.snapshot().connections()));
        f.add(name, r + "connector threads" + when, chain(s, x -> x.snapshot().connectorThreads()),
                chain(o, x -> x.snapshot().connectorThreads()), FaultVerdicts.threads(
                        s.before.snapshot().connectorThreads(), s.end.snapshot().connectorThreads(),
                        o.before.snapshot().connectorThreads(), o.end.snapshot().connectorThreads(), o.end.busy()));
        f.add(name, r + "busy threads (Tomcat's currentThreadsBusy)" + when, chain(s, Reading::busy),
                chain(o, Reading::busy), o.end.busy() == 0 ? "ok" : "worse");
        f.add(name, r + "write-behind bytes" + when, "n/a", chain(o, x -> x.snapshot().writeBehindBytes()),
                o.end.snapshot().writeBehindBytes() == 0 ? "ok" : "worse");
        String fds = s.before.snapshot().fds() + " -> " + s.rightAfter.snapshot().fds() + " -> "
                + s.after.snapshot().fds() + " -> " + result.fdsEnd() + " (end - before by kind: " + result.fdDelta()
                + ")";
        f.add(name, r + "fds of the whole server (both connectors at once)" + when, fds, fds, "");
    }

    private static String cut(Double seconds, Result result) {
        return seconds == null ? "held (" + result.watchSeconds() + " s after the cut)"
                : String.format("%.1f", seconds);
    }

    /** The figure at the four instants, {@code before -> right after -> after the watch -> end}. */
    private static String chain(Outcome o, ToLongFunction<Reading> figure) {
        return figure.applyAsLong(o.before) + " -> " + figure.applyAsLong(o.rightAfter) + " -> "
                + figure.applyAsLong(o.after) + " -> " + figure.applyAsLong(o.end);
    }

    static String note(long timeoutMillis, Map<Side, Integer> maxConnections) {
        return "Vanished clients (server `faults-vanish`, no valve): one `VanishingClient` process in the network"
                + " namespace `" + ClientNamespace.NAME + "` (veth pair, server on " + ClientNamespace.SERVER_ADDRESS
                + ", client " + ClientNamespace.CLIENT_ADDRESS + ") opens to each connector: " + String.join("; ",
                        Arrays.stream(Kind.values()).map(Kind::description).toList()) + ". Then the namespace's end"
                + " of the link goes down (nothing passes either way; the server's retransmissions are dropped at the"
                + " veth) and the process is killed. Both connectors with `connectionTimeout=\"" + timeoutMillis
                + "\"` (stock's keepAliveTimeout defaults to it; ours keeps idle connections without a deadline by"
                + " design), ours with `maxConnections=\"" + maxConnections.get(Side.OURS) + "\"` here (default"
                + " 8192) so that the bound shows: fresh keep-alive clients from the host are then opened one by one"
                + " until the server lets the held one go. Cut: the server closed its socket (read from /proc/net/tcp6"
                + " and the server's fds every " + POLL_MILLIS + " ms for " + WATCH_TIMEOUTS + " x connectionTimeout"
                + " after the cut), timed from the client's last byte sent or read (same clock). Right after: 0.3 s"
                + " after the cut; after the watch, and end (after the eviction step, if any, and 1 s): snapshots after"
                + " two full GCs. What a held idle connection costs ours (one fd and a kernel socket, no thread, no"
                + " buffer) is measured per connection in 1-idle; maxConnections bounds how many it keeps.";
    }
}
