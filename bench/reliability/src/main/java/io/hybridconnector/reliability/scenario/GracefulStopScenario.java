package io.hybridconnector.reliability.scenario;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.hybridconnector.reliability.Lab;
import io.hybridconnector.reliability.Scenario;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.client.RawConnection;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 6: {@code catalina.sh stop} while clients keep asking (100 KB bodies and 300 ms blocking requests on
 * keep-alive connections) and idle keep-alive connections wait: requests in flight must complete, no response may be
 * truncated, idle connections get a clean close (FIN), the JVM exits by itself (no thread left that keeps it up). One
 * server per connector (stopping one stops both of its ports), only that connector loaded. Main thread, plus one
 * thread per client.
 */
public final class GracefulStopScenario implements Scenario {

    private static final String NAME = "6-graceful-stop";
    private static final int CLIENTS = 16;
    private static final int IDLE = 20;

    private record Outcome(Map<String, Long> requests, Map<String, Integer> idle, long stopMillis, int exitValue,
            long threadWarnings, long severe) {
    }

    @Override
    public String name() {
        return "graceful-stop";
    }

    @Override
    public String title() {
        return "catalina.sh stop under load: in-flight requests, truncation, idle connections, threads left";
    }

    @Override
    public void run(Lab lab) throws Exception {
        Map<Side, Outcome> out = new EnumMap<>(Side.class);
        for (Side side : Side.values()) {
            out.put(side, stopUnderLoad(lab, side));
        }
        report(lab, out);
    }

    private Outcome stopUnderLoad(Lab lab, Side side) throws Exception {
        ServerUnderTest server = ServerUnderTest.start(lab, "stop-" + side.name().toLowerCase(), "", "");
        InetSocketAddress at = server.address(side);
        List<RawConnection> idle = new ArrayList<>();
        for (int i = 0; i < IDLE; i++) {
            RawConnection c = RawConnection.open(at);
            c.write("GET /samples/size?kb=0.1 HTTP/1.1\r\nHost: x\r\n\r\n");
            c.read(5_000);
            idle.add(c);
        }
        Map<String, AtomicLong> outcomes = new ConcurrentHashMap<>();
        AtomicLong stopStarted = new AtomicLong(Long.MAX_VALUE);
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            String path = i % 2 == 0 ? "/samples/size?kb=100" : "/samples/block?ms=300";
            Thread t = new Thread(() -> client(at, path, outcomes, stopStarted), "stop-client-" + i);
            t.setDaemon(true);
            t.start();
            clients.add(t);
        }
        Thread.sleep(3_000);
        long t0 = System.nanoTime();
        stopStarted.set(t0);
        server.close();
        long stopMillis = (System.nanoTime() - t0) / 1_000_000;
        for (Thread t : clients) {
            t.join(15_000);
        }
        Map<String, Integer> idleKinds = new TreeMap<>();
        for (RawConnection c : idle) {
            idleKinds.merge(c.closeKind(2_000), 1, Integer::sum);
            c.close();
        }
        String logs = server.tomcat().logs();
        long threadWarnings = logs.lines().filter(l -> l.contains("appears to have started a thread")).count();
        long severe = logs.lines().filter(l -> l.contains("SEVERE")).count();
        Map<String, Long> requests = new TreeMap<>();
        outcomes.forEach((k, v) -> requests.put(k, v.get()));
        lab.log("  %s: stop took %d ms, exit %d; requests %s; idle connections %s; thread warnings %d, SEVERE %d",
                side.label(), stopMillis, server.tomcat().exitValue(), requests, idleKinds, threadWarnings, severe);
        return new Outcome(requests, idleKinds, stopMillis, server.tomcat().exitValue(), threadWarnings, severe);
    }

    /** Keep-alive requests until the server is gone; each outcome counted by kind. */
    private static void client(InetSocketAddress at, String path, Map<String, AtomicLong> outcomes,
            AtomicLong stopStarted) {
        RawConnection c = null;
        while (true) {
            try {
                if (c == null) {
                    c = RawConnection.open(at);
                }
            } catch (IOException e) {
                count(outcomes, "connect refused after the stop began");
                return;
            }
            long sent = System.nanoTime();
            boolean beforeStop = sent < stopStarted.get();
            try {
                c.write("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
            } catch (IOException e) {
                count(outcomes, beforeStop ? "write failed (before stop)" : "write failed (stop began)");
                c.close();
                c = null;
                continue;
            }
            RawConnection.Response r;
            try {
                r = c.read(20_000);
            } catch (IOException e) {
                r = new RawConnection.Response(0, 0, false, "", e.getMessage());
            }
            if (r.complete() && r.status() == 200) {
                count(outcomes, "complete 200");
                if (r.text().contains("Connection: close")) {
                    c.close();
                    c = null;
                }
                continue;
            }
            c.close();
            c = null;
            if (r.status() != 0) {
                count(outcomes, "TRUNCATED or not 200 (status " + r.status() + ", " + r.error() + ")");
            } else {
                count(outcomes, beforeStop ? "unanswered, sent before the stop command" : "unanswered, sent after it");
            }
        }
    }

    private static void count(Map<String, AtomicLong> outcomes, String kind) {
        outcomes.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
    }

    /** Outcomes of that kind; "(any)" sums the kinds that start with the same words. */
    private static long outcomes(Map<String, Long> requests, String kind) {
        if (!kind.endsWith("(any)")) {
            return requests.getOrDefault(kind, 0L);
        }
        String prefix = kind.substring(0, kind.length() - "(any)".length());
        return requests.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
                .mapToLong(Map.Entry::getValue).sum();
    }

    private static void report(Lab lab, Map<Side, Outcome> out) {
        Findings f = lab.findings();
        f.begin(NAME, new GracefulStopScenario().title());
        Outcome s = out.get(Side.STOCK);
        Outcome o = out.get(Side.OURS);
        java.util.Set<String> kinds = new java.util.TreeSet<>(s.requests.keySet());
        kinds.addAll(o.requests.keySet());
        kinds.add("TRUNCATED or not 200 (any)");
        kinds.add("unanswered, sent before the stop command");
        for (String k : kinds) {
            long sv = outcomes(s.requests, k);
            long ov = outcomes(o.requests, k);
            String verdict = k.startsWith("TRUNCATED") || k.contains("before the stop") ? (ov <= sv ? "ok" : "worse")
                    : "";
            f.add(NAME, "requests: " + k, sv, ov, verdict);
        }
        f.addSame(NAME, "idle keep-alive connections (" + IDLE + "): how they ended", s.idle, o.idle);
        f.addLowerIsBetter(NAME, "stop took (ms, catalina.sh stop to JVM exit)", s.stopMillis, o.stopMillis, 500);
        f.addSame(NAME, "JVM exit value (0: exited by itself; 137: killed after 30 s)", s.exitValue, o.exitValue);
        f.addLowerIsBetter(NAME, "\"appears to have started a thread\" warnings", s.threadWarnings, o.threadWarnings,
                0);
        f.add(NAME, "SEVERE log lines (whole server)", s.severe, o.severe, "");
        f.note(NAME, CLIENTS + " client threads on keep-alive connections, half asking `/samples/size?kb=100`, half"
                + " `/samples/block?ms=300`, for 3 s; then `catalina.sh stop` (SideBySideTomcat.close) while they go on;"
                + " " + IDLE + " idle keep-alive connections wait meanwhile. A request counts as sent before the stop"
                + " if its bytes left before `catalina.sh stop` was started (the SHUTDOWN command reaches Tomcat about"
                + " a second later, so those may be answered or refused).");
    }
}
