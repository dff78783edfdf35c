package io.hybridconnector.reliability.scenario;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.reliability.Lab;
import io.hybridconnector.reliability.Scenario;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.Snapshot;
import io.hybridconnector.reliability.client.Latencies;
import io.hybridconnector.reliability.client.RawConnection;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 1: many idle keep-alive connections (each served one request, then left open): what each costs in threads,
 * RSS, heap and direct memory, how fast fresh requests are meanwhile, whether the idle ones still work; then, on a
 * server with {@code maxConnections="100"}, what a new client meets at the limit: ours evicts the least recently
 * used idle connection (never one inside a request), stock stops accepting. Main thread.
 */
public final class IdleScenario implements Scenario {

    private static final String NAME = "1-idle";
    private static final int LIMIT = 100;
    private static final int FRESH = 200;
    /** Descriptors each process keeps for its jars, logs, selectors and the other scenarios' sockets. */
    private static final int FILES_KEPT_FOR_OTHER_USES = 2_000;

    private record Idle(Snapshot before, Snapshot during, Snapshot after, int opened, int stillServing,
            int sampled, Latencies fresh, Latencies onIdle) {
    }

    private record AtLimit(String newClient, long newClientMillis, String inRequest, int idleClosedByServer) {
    }

    @Override
    public String name() {
        return "idle";
    }

    @Override
    public String title() {
        return "idle keep-alive connections: cost per connection, fresh requests meanwhile, behaviour at maxConnections";
    }

    @Override
    public void run(Lab lab) throws Exception {
        int wanted = lab.profile().idleConnections();
        long openFiles = openFilesLimit();
        boolean together = fitToOpenFilesLimit(wanted, openFiles, Side.values().length) == wanted;
        int n = fitToOpenFilesLimit(wanted, openFiles, together ? Side.values().length : 1);
        if (!together) {
            lab.log("  %d idle connections per connector, one connector's set at a time: this process and Tomcat may"
                    + " each open %d files", n, openFiles);
        }
        // Stock would stop accepting at its default maxConnections (8192) and close idle ones after 20 s.
        String attrs = "maxConnections=\"" + (n + 1000) + "\" keepAliveTimeout=\"-1\"";
        Map<Side, Idle> idle;
        try (ServerUnderTest server = ServerUnderTest.start(lab, "idle", attrs, attrs)) {
            idle = idle(lab, server, n, together);
        }
        Map<Side, AtLimit> limit = new EnumMap<>(Side.class);
        String limitAttrs = "maxConnections=\"" + LIMIT + "\" keepAliveTimeout=\"-1\"";
        try (ServerUnderTest server = ServerUnderTest.start(lab, "idle-limit", limitAttrs, limitAttrs)) {
            for (Side side : Side.values()) {
                limit.put(side, atLimit(lab, server.address(side)));
            }
        }
        report(lab, idle, limit, n, together);
    }

    /**
     * Stock's idle connections are opened first and measured, then ours' beside them (the snapshot deltas are per
     * connector); fresh requests then alternate between the two while both sets are open, so that the other jobs on
     * the machine disturb both alike. Where both sets do not fit the open-files limit at once, each connector's set is
     * opened, measured and closed in turn.
     */
    private Map<Side, Idle> idle(Lab lab, ServerUnderTest server, int n, boolean together) throws Exception {
        Map<Side, Idle> result = new EnumMap<>(Side.class);
        if (together) {
            result.putAll(idleAtOnce(lab, server, n, List.of(Side.values())));
        } else {
            for (Side side : Side.values()) {
                result.putAll(idleAtOnce(lab, server, n, List.of(side)));
            }
        }
        return result;
    }

    private Map<Side, Idle> idleAtOnce(Lab lab, ServerUnderTest server, int n, List<Side> sides) throws Exception {
        Map<Side, List<RawConnection>> open = new EnumMap<>(Side.class);
        Map<Side, Snapshot[]> snaps = new EnumMap<>(Side.class);
        Map<Side, Integer> opened = new EnumMap<>(Side.class);
        Map<Side, Latencies> fresh = new EnumMap<>(Side.class);
        Map<Side, Latencies> onIdle = new EnumMap<>(Side.class);
        Map<Side, Integer> serving = new EnumMap<>(Side.class);
        try {
            for (Side side : sides) {
                InetSocketAddress at = server.address(side);
                fresh(at, 50, new Latencies()); // warm
                Thread.sleep(500);
                Snapshot before = server.snapshot(side, true);
                List<RawConnection> conns = new ArrayList<>(n);
                open.put(side, conns);
                opened.put(side, openIdle(at, n, conns));
                Thread.sleep(2_000);
                Snapshot during = server.snapshot(side, true);
                snaps.put(side, new Snapshot[] { before, during, null });
                lab.log("  %s with %d idle: %s", side.label(), opened.get(side), during.brief());
            }
            for (Side side : sides) {
                fresh.put(side, new Latencies());
            }
            for (int i = 0; i < FRESH; i++) {
                for (Side side : sides) {
                    fresh(server.address(side), 1, fresh.get(side));
                }
            }
            for (Side side : sides) {
                Latencies l = new Latencies();
                onIdle.put(side, l);
                serving.put(side, useSome(open.get(side), l));
            }
        } finally {
            open.values().forEach(list -> list.forEach(RawConnection::close));
        }
        Thread.sleep(2_000);
        Map<Side, Idle> result = new EnumMap<>(Side.class);
        for (Side side : sides) {
            Snapshot after = server.snapshot(side, true);
            lab.log("  %s after closing them: %s", side.label(), after.brief());
            Snapshot[] s = snaps.get(side);
            result.put(side, new Idle(s[0], s[1], after, opened.get(side), serving.get(side),
                    onIdle.get(side).count() + onIdle.get(side).failures(), fresh.get(side), onIdle.get(side)));
        }
        return result;
    }

    /** Opens connections, one request each, and leaves them open; returns how many got their 200. */
    private static int openIdle(InetSocketAddress at, int n, List<RawConnection> into) {
        int ok = 0;
        for (int i = 0; i < n; i++) {
            try {
                RawConnection c = RawConnection.open(at);
                into.add(c);
                c.write("GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n\r\n");
                RawConnection.Response r = c.read(10_000);
                ok += r.complete() && r.status() == 200 ? 1 : 0;
            } catch (IOException e) {
                break; // client fd limit or refused: report how many were opened
            }
        }
        return ok;
    }

    /** One request on 100 of the idle connections, the oldest first (the ones an LRU would drop). */
    private static int useSome(List<RawConnection> open, Latencies latencies) {
        int serving = 0;
        int step = Math.max(1, open.size() / 100);
        for (int i = 0; i < open.size(); i += step) {
            long t0 = System.nanoTime();
            try {
                RawConnection c = open.get(i);
                c.write("GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n\r\n");
                RawConnection.Response r = c.read(10_000);
                if (r.complete() && r.status() == 200) {
                    serving++;
                    latencies.add(System.nanoTime() - t0);
                    continue;
                }
            } catch (IOException e) {
                // counted below
            }
            latencies.fail();
        }
        return serving;
    }

    /** Fresh connections, one request each: connect to last byte. */
    private static void fresh(InetSocketAddress at, int n, Latencies l) {
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            try (RawConnection c = RawConnection.open(at)) {
                c.write("GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n\r\n");
                RawConnection.Response r = c.read(10_000);
                if (r.complete() && r.status() == 200) {
                    l.add(System.nanoTime() - t0);
                } else {
                    l.fail();
                }
            } catch (IOException e) {
                l.fail();
            }
        }
    }

    /**
     * At maxConnections: the oldest connection is inside a 3 s request, {@code LIMIT - 1} idle ones after it; then a
     * new client asks for 0.1 KB.
     */
    private AtLimit atLimit(Lab lab, InetSocketAddress at) throws Exception {
        List<RawConnection> idle = new ArrayList<>();
        try (RawConnection busy = RawConnection.open(at)) {
            busy.write("GET /samples/block?ms=3000 HTTP/1.1\r\nHost: x\r\n\r\n");
            Thread.sleep(200);
            for (int i = 0; i < LIMIT - 1; i++) {
                RawConnection c = RawConnection.open(at);
                idle.add(c);
                c.write("GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n\r\n");
                c.read(5_000);
            }
            Thread.sleep(300);
            long t0 = System.nanoTime();
            String newClient;
            try (RawConnection c = RawConnection.open(at)) {
                c.write("GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n\r\n");
                RawConnection.Response r = c.read(10_000);
                newClient = r.status() + (r.complete() ? " complete" : " incomplete (" + r.error() + ")");
            }
            long newMillis = (System.nanoTime() - t0) / 1_000_000;
            RawConnection.Response b = busy.read(10_000);
            String inRequest = b.status() + (b.complete() ? " complete" : " incomplete (" + b.error() + ")");
            int closed = 0;
            for (RawConnection c : idle) {
                closed += c.closedByServer(20) ? 1 : 0;
            }
            lab.log("  at maxConnections=%d: new client %s in %d ms; the request in flight %s; idle closed %d",
                    LIMIT, newClient, newMillis, inRequest, closed);
            return new AtLimit(newClient, newMillis, inRequest, closed);
        } finally {
            idle.forEach(RawConnection::close);
        }
    }

    private static void report(Lab lab, Map<Side, Idle> idle, Map<Side, AtLimit> limit, int n, boolean together) {
        Findings f = lab.findings();
        f.begin(NAME, new IdleScenario().title());
        Idle s = idle.get(Side.STOCK);
        Idle o = idle.get(Side.OURS);
        f.addSame(NAME, "idle connections opened (each served one request)", s.opened, o.opened);
        f.addLowerIsBetter(NAME, "JVM threads with them open - before", s.during.threads() - s.before.threads(),
                o.during.threads() - o.before.threads(), 0);
        f.addLowerIsBetter(NAME, "RSS per idle connection (KB)", perConnection(s, Snapshot::rssKb, 1),
                perConnection(o, Snapshot::rssKb, 1), 1);
        f.addLowerIsBetter(NAME, "heap after GC per idle connection (KB)", perConnection(s, Snapshot::heapBytes, 1024),
                perConnection(o, Snapshot::heapBytes, 1024), 0.5);
        f.addLowerIsBetter(NAME, "direct memory per idle connection (bytes)",
                perConnection(s, Snapshot::directBytes, 1), perConnection(o, Snapshot::directBytes, 1), 16);
        f.addLowerIsBetter(NAME, "fresh requests meanwhile (" + FRESH + ", new connection each): p50 ms",
                s.fresh.millis(50), o.fresh.millis(50), 0.5);
        f.addLowerIsBetter(NAME, "fresh requests meanwhile: p99 ms", s.fresh.millis(99), o.fresh.millis(99), 1);
        f.addSame(NAME, "fresh requests meanwhile: failures", s.fresh.failures(), o.fresh.failures());
        f.addSame(NAME, "idle connections that still serve (sampled, oldest first)", s.stillServing + " of "
                + s.sampled, o.stillServing + " of " + o.sampled);
        f.addLowerIsBetter(NAME, "request on a long-idle connection: p99 ms", s.onIdle.millis(99),
                o.onIdle.millis(99), 1);
        f.add(NAME, "connections after closing them all (Tomcat's count)", s.after.connections(),
                o.after.connections(), o.after.connections() <= s.after.connections() ? "ok" : "worse");
        f.addLowerIsBetter(NAME, "fds with them open - before, per connection", (s.during.fds() - s.before.fds())
                / (double) Math.max(1, s.opened), (o.during.fds() - o.before.fds()) / (double) Math.max(1, o.opened), 0.01);
        f.add(NAME, "whole server: fds after all were closed - before any was opened", o.after.fds() - s.before.fds(),
                o.after.fds() - s.before.fds(), o.after.fds() <= s.before.fds() ? "ok" : "worse");
        AtLimit ls = limit.get(Side.STOCK);
        AtLimit lo = limit.get(Side.OURS);
        f.add(NAME, "at maxConnections=" + LIMIT + ": new client's request", ls.newClient, lo.newClient, "");
        f.addLowerIsBetter(NAME, "at maxConnections: new client's latency ms", ls.newClientMillis,
                lo.newClientMillis, 5);
        f.addSame(NAME, "at maxConnections: the oldest connection, inside a 3 s request", ls.inRequest,
                lo.inRequest);
        f.add(NAME, "at maxConnections: idle connections closed by the server", ls.idleClosedByServer,
                lo.idleClosedByServer, "");
        f.note(NAME, n + " connections per connector (asked: " + lab.profile().idleConnections() + "; open-files"
                + " limit of the suite and of Tomcat: " + openFilesLimit() + (together ? "; both sets open at once"
                : "; one connector's set at a time, fresh requests measured while it was open") + "), both with `maxConnections=\"" + (n + 1000)
                + "\" keepAliveTimeout=\"-1\"` (stock would otherwise close idle connections after 20 s and stop"
                + " accepting at 8192). Per-connection figures: (with them open - before) / opened, snapshots after"
                + " two full GCs. Fresh requests: a new connection per request, connect to last byte, one at a time."
                + " The limit part runs on its own server with `maxConnections=\"" + LIMIT + "\"`: the oldest"
                + " connection asks `/samples/block?ms=3000`, " + (LIMIT - 1) + " idle ones follow, then a new"
                + " client asks for 0.1 KB.");
    }

    /**
     * How many idle connections per connector fit when {@code sets} connectors' sets are open at once, in this process
     * (the clients) and in Tomcat (which inherits this process's limit), each keeping some files for itself.
     */
    static int fitToOpenFilesLimit(int wanted, long limit, int sets) {
        long fits = (limit - FILES_KEPT_FOR_OTHER_USES) / sets;
        return (int) Math.max(0, Math.min(wanted, fits));
    }

    /** The soft limit on open files of this process (the JVM raises it to the hard limit at start), from procfs. */
    static long openFilesLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: assume the common default
        }
        return 1024;
    }

    private static double perConnection(Idle i, java.util.function.ToLongFunction<Snapshot> field, double unit) {
        return i.opened == 0 ? Double.NaN
                : (field.applyAsLong(i.during) - field.applyAsLong(i.before)) / unit / i.opened;
    }
}
