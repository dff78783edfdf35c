package io.hybridconnector.reliability.scenario;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.hybridconnector.reliability.Lab;
import io.hybridconnector.reliability.Profile;
import io.hybridconnector.reliability.Scenario;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.Snapshot;
import io.hybridconnector.reliability.client.RawConnection;
import io.hybridconnector.reliability.net.ClientNamespace;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 4: clients that reset mid-body and mid-response, half-close after the request, a burst of connections
 * opened and closed at once, servlets that throw (before and after committing) and an AsyncContext left to time out.
 * Afterwards the connection count, threads, fds, direct and write-behind memory must be back where they started, and
 * the shaded allocator's PARANOID leak detector must have reported nothing.
 *
 * <p>Then the faults that only a deadline ends, each on a server of its own with a short {@code connectionTimeout} so
 * that the deadlines pass within the run: {@link HungServlets} (servlets that never return until Tomcat's
 * StuckThreadDetectionValve interrupts them) and {@link VanishedClients} (clients whose FIN and reset never arrive:
 * idle, mid-request, mid-response). Apart because the valve would interrupt the vanished clients' stalled requests
 * too. The vanished clients' server listens on the host's end of a veth pair whose other end is in a network
 * namespace ({@link ClientNamespace}); without root or iproute2 they are reported as not run, with the reason.
 * Main thread.
 */
public final class FaultsScenario implements Scenario {

    private static final String NAME = "4-faults";
    /** connectionTimeout (and so stock's keepAliveTimeout) of the two servers of deadlines: short, so they pass. */
    private static final int DEADLINE_TIMEOUT_MS = 5_000;
    /** Ours' maxConnections on the vanished clients' server: low, so that the LRU eviction's bound shows. */
    private static final int OUR_MAX_CONNECTIONS = 32;
    /** Stock NIO's default maxConnections, left as it is. */
    private static final int STOCK_MAX_CONNECTIONS = 8_192;

    /** What one connector showed. */
    private record Outcome(Snapshot before, Snapshot after, String fdDelta, int halfCloseComplete,
            String throwBefore, String throwAfter, String asyncTimeout, long churnMillis, int churnErrors,
            int healthyAfter) {
    }

    /**
     * Two rounds per connector, interleaved (stock, ours, stock, ours): round 1 may grow pools that stay (Tomcat's
     * workers, our pooled write-behind chunks), so a leak shows as growth again in round 2.
     */
    private static final int ROUNDS = 2;

    @Override
    public String name() {
        return "faults";
    }

    @Override
    public String title() {
        return "resets mid-body and mid-response, half-close, fast open/close, servlets that throw, async timeouts;"
                + " servlets that never return, clients that vanish without FIN";
    }

    @Override
    public void run(Lab lab) throws Exception {
        List<Map<Side, Outcome>> rounds = new ArrayList<>();
        try (ServerUnderTest server = ServerUnderTest.start(lab, "faults", "", "")) {
            for (int round = 1; round <= ROUNDS; round++) {
                Map<Side, Outcome> out = new EnumMap<>(Side.class);
                for (Side side : Side.values()) {
                    out.put(side, faults(lab, server, side));
                }
                rounds.add(out);
            }
            report(lab, rounds, server.leakReports().size());
        }
        hungServlets(lab);
        vanishedClients(lab);
    }

    /**
     * Hung servlets on a server of their own, each connector in turn: the valve interrupts every request older than
     * its threshold, so the vanished clients' stalled requests must not run where it is.
     */
    private static void hungServlets(Lab lab) throws Exception {
        String timeout = "connectionTimeout=\"" + DEADLINE_TIMEOUT_MS + "\"";
        try (ServerUnderTest server = ServerUnderTest.start(lab, "faults-hung", timeout, timeout,
                new ServerUnderTest.Layout("127.0.0.1", HungServlets.HOST_ATTRIBUTES, HungServlets.VALVE))) {
            Map<Side, HungServlets.Outcome> hung = new EnumMap<>(Side.class);
            for (Side side : Side.values()) {
                hung.put(side, HungServlets.run(lab, server, side));
            }
            HungServlets.report(lab.findings(), NAME, hung);
            lab.findings().note(NAME, HungServlets.note(DEADLINE_TIMEOUT_MS));
            leaks(lab, "hung servlets' server", server);
        }
    }

    /**
     * Vanished clients on a server of their own, listening on the host's end of the client namespace's veth pair;
     * both connectors at once. Not run, with the reason, when the namespace cannot be made.
     */
    private static void vanishedClients(Lab lab) throws Exception {
        ClientNamespace ns;
        try {
            ns = ClientNamespace.create();
        } catch (IOException e) {
            lab.log("  vanished clients not run: %s", e.getMessage());
            lab.findings().add(NAME, "vanished client", "not run: " + e.getMessage(), "not run: " + e.getMessage(),
                    "");
            return;
        }
        try (ns) {
            String timeout = "connectionTimeout=\"" + DEADLINE_TIMEOUT_MS + "\"";
            Map<Side, Integer> maxConnections = Map.of(Side.STOCK, STOCK_MAX_CONNECTIONS, Side.OURS,
                    OUR_MAX_CONNECTIONS);
            try (ServerUnderTest server = ServerUnderTest.start(lab, "faults-vanish", timeout, timeout
                    + " maxConnections=\"" + OUR_MAX_CONNECTIONS + "\"", new ServerUnderTest.Layout(
                            ClientNamespace.SERVER_ADDRESS, "", ""))) {
                VanishedClients.report(lab.findings(), NAME, VanishedClients.run(lab, server, ns, DEADLINE_TIMEOUT_MS,
                        maxConnections));
                lab.findings().note(NAME, VanishedClients.note(DEADLINE_TIMEOUT_MS, maxConnections));
                leaks(lab, "vanished clients' server", server);
            }
        }
    }

    private static void leaks(Lab lab, String which, ServerUnderTest server) throws IOException {
        long leaks = server.leakReports().size();
        lab.findings().add(NAME, "PARANOID leak reports in the logs (" + which + ")", leaks, leaks,
                leaks == 0 ? "ok" : "worse");
    }

    private Outcome faults(Lab lab, ServerUnderTest server, Side side) throws Exception {
        InetSocketAddress at = server.address(side);
        int repeats = lab.profile().faultRepeats();
        healthy(at, 50);
        Thread.sleep(500);
        Snapshot before = server.snapshot(side, true);
        Map<String, Integer> fdsBefore = server.fdKinds();
        lab.log("  %s before: %s", side.label(), before.brief());
        for (int i = 0; i < repeats; i++) {
            resetMidBody(at);
            resetMidResponse(at);
        }
        int halfClosed = 0;
        for (int i = 0; i < repeats; i++) {
            halfClosed += halfCloseAfterRequest(at) ? 1 : 0;
        }
        String throwBefore = "";
        String throwAfter = "";
        for (int i = 0; i < repeats; i++) {
            throwBefore = describe(at, "/samples/fail");
            throwAfter = describe(at, "/samples/fail?kb=16");
        }
        String async = "";
        for (int i = 0; i < Math.min(repeats, 20); i++) {
            async = describe(at, "/samples/async-timeout?timeoutMs=100");
        }
        lab.log("  %s faults done", side.label());
        long t0 = System.nanoTime();
        int churnErrors = churn(at, lab.profile().churnConnections());
        long churnMillis = (System.nanoTime() - t0) / 1_000_000;
        Thread.sleep(2_000); // let the server see the last closes
        int healthyAfter = healthy(at, 50);
        Thread.sleep(1_000);
        Snapshot after = server.snapshot(side, true);
        String fdDelta = ServerUnderTest.fdDelta(fdsBefore, server.fdKinds());
        lab.log("  %s after:  %s; fds by kind: %s", side.label(), after.brief(), fdDelta);
        return new Outcome(before, after, fdDelta, halfClosed, throwBefore, throwAfter, async, churnMillis, churnErrors,
                healthyAfter);
    }

    /** POST announcing 1 MB, 64 KB sent, then RST. */
    private static void resetMidBody(InetSocketAddress at) throws IOException {
        RawConnection c = RawConnection.open(at);
        c.write("POST /samples/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n");
        c.write(new byte[64 * 1024]);
        c.reset();
    }

    /** GET of 4 MB, 64 KB of the body read, then RST while the server is still writing. */
    private static void resetMidResponse(InetSocketAddress at) throws IOException {
        RawConnection c = RawConnection.open(at);
        c.write("GET /samples/size?kb=4096 HTTP/1.1\r\nHost: x\r\n\r\n");
        c.read(5_000, 64 * 1024);
        c.reset();
    }

    /** GET, then FIN at once: the response must still arrive complete. */
    private static boolean halfCloseAfterRequest(InetSocketAddress at) throws IOException {
        try (RawConnection c = RawConnection.open(at)) {
            c.write("GET /samples/size?kb=10 HTTP/1.1\r\nHost: x\r\n\r\n");
            c.halfClose();
            RawConnection.Response r = c.read(5_000);
            return r.complete() && r.status() == 200 && r.bodyBytes() == 10 * 1024;
        }
    }

    /** Status, completeness and whether the server closed after it: what a client sees of one request. */
    static String describe(InetSocketAddress at, String path) throws IOException {
        try (RawConnection c = RawConnection.open(at)) {
            c.write("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
            RawConnection.Response r = c.read(5_000);
            boolean closed = r.complete() ? c.closedByServer(300) : "closed".equals(r.error());
            return r.status() + (r.complete() ? " complete" : " incomplete (" + r.error() + ")")
                    + (closed ? ", closed" : ", kept open");
        }
    }

    /** Opens and closes (FIN) connections one after another, as fast as the client can. */
    private static int churn(InetSocketAddress at, int n) {
        int errors = 0;
        for (int i = 0; i < n; i++) {
            try (Socket s = new Socket()) {
                s.connect(at, 5_000);
            } catch (IOException e) {
                errors++;
            }
        }
        return errors;
    }

    /** Plain GETs on fresh connections; returns how many succeeded. */
    private static int healthy(InetSocketAddress at, int n) throws IOException {
        int ok = 0;
        for (int i = 0; i < n; i++) {
            try (RawConnection c = RawConnection.open(at)) {
                c.write("GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n\r\n");
                RawConnection.Response r = c.read(5_000);
                ok += r.complete() && r.status() == 200 ? 1 : 0;
            }
        }
        return ok;
    }

    private static void report(Lab lab, List<Map<Side, Outcome>> rounds, int leaks) {
        Findings f = lab.findings();
        f.begin(NAME, new FaultsScenario().title());
        for (int i = 0; i < rounds.size(); i++) {
            Outcome s = rounds.get(i).get(Side.STOCK);
            Outcome o = rounds.get(i).get(Side.OURS);
            String r = "round " + (i + 1) + ": ";
            f.addLowerIsBetter(NAME, r + "connections after (before: stock " + s.before.connections() + ", ours "
                    + o.before.connections() + ")", s.after.connections(), o.after.connections(), 0);
            f.addLowerIsBetter(NAME, r + "fds after - before", s.after.fds() - s.before.fds(),
                    o.after.fds() - o.before.fds(), 0);
            f.add(NAME, r + "fds by kind, after - before", s.fdDelta, o.fdDelta, "");
            f.add(NAME, r + "connector threads before -> after", s.before.connectorThreads() + " -> "
                    + s.after.connectorThreads(), o.before.connectorThreads() + " -> " + o.after.connectorThreads(),
                    o.after.connectorThreads() - o.before.connectorThreads()
                            <= s.after.connectorThreads() - s.before.connectorThreads() ? "ok" : "worse");
            f.addLowerIsBetter(NAME, r + "direct memory after - before (KB)",
                    (s.after.directBytes() - s.before.directBytes()) / 1024.0,
                    (o.after.directBytes() - o.before.directBytes()) / 1024.0, 0);
            f.addLowerIsBetter(NAME, r + "heap after GC, after - before (MB)",
                    (s.after.heapBytes() - s.before.heapBytes()) / 1048576.0,
                    (o.after.heapBytes() - o.before.heapBytes()) / 1048576.0, 2);
            f.add(NAME, r + "write-behind bytes after", "n/a", o.after.writeBehindBytes(),
                    o.after.writeBehindBytes() == 0 ? "ok" : "worse");
            f.addSame(NAME, r + "half-close after request: complete 200 responses", s.halfCloseComplete,
                    o.halfCloseComplete);
            f.addSame(NAME, r + "servlet throws before commit", s.throwBefore, o.throwBefore);
            f.addSame(NAME, r + "servlet throws after 16 KB of 32 KB (committed)", s.throwAfter, o.throwAfter);
            f.addSame(NAME, r + "AsyncContext left to time out (100 ms)", s.asyncTimeout, o.asyncTimeout);
            f.add(NAME, r + "fast open/close: ms for the burst (connect errors)",
                    s.churnMillis + " (" + s.churnErrors + ")", o.churnMillis + " (" + o.churnErrors + ")",
                    o.churnErrors <= s.churnErrors ? "ok" : "worse");
            f.addSame(NAME, r + "fresh requests afterwards: 200 of 50", s.healthyAfter, o.healthyAfter);
        }
        f.add(NAME, "PARANOID leak reports in the logs (whole server)", leaks, leaks, leaks == 0 ? "ok" : "worse");
        Profile p = lab.profile();
        f.note(NAME, "Per round and connector: " + p.faultRepeats() + " resets mid-body (POST announcing 1 MB, 64 KB"
                + " sent, RST), " + p.faultRepeats() + " resets mid-response (4 MB asked, 64 KB read, RST), "
                + p.faultRepeats() + " half-closes after a GET of 10 KB, " + p.faultRepeats() + " x `/samples/fail`"
                + " before and after committing, 20 x `/samples/async-timeout?timeoutMs=100`, then "
                + p.churnConnections() + " connections opened and closed (FIN) one after another. Snapshots after two"
                + " full GCs, 1-3 s after the last fault. The rows from `hung servlet` on run on two more servers, with"
                + " `connectionTimeout=\"" + DEADLINE_TIMEOUT_MS + "\"` on both connectors: see below.");
    }
}
