package io.hybridconnector.reliability.scenario;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.reliability.Lab;
import io.hybridconnector.reliability.ServerUnderTest;
import io.hybridconnector.reliability.Side;
import io.hybridconnector.reliability.Snapshot;
import io.hybridconnector.reliability.client.NormalClients;
import io.hybridconnector.reliability.client.RawConnection;
import io.hybridconnector.reliability.report.Findings;

/**
 * Scenario 4's servlets that never return: a few requests to {@code /samples/block?ms=600000} (ten minutes of
 * {@code Thread.sleep}) beside the normal clients, until Tomcat's own {@code StuckThreadDetectionValve} interrupts
 * them. The valve interrupts the thread that runs the request; on stock that is a worker of the connector's pool, on
 * ours the thread that led a loop when the request began (the loop has moved on without it), so whether the
 * interrupt reaches the servlet, what the client gets and whether the connector is left sound (threads, CPU while
 * quiet, connections) is the question. The servlet answers an interrupt with 503.
 *
 * <p>The valve interrupts every request older than its threshold, not only servlets that hang: one live upload,
 * trickled for longer than the threshold, runs beside them, because a connector may treat an interrupt during its
 * wait for the client's bytes differently from stock. Main thread, and one thread per client of these requests.
 */
final class HungServlets {

    /** Requests that hang, per connector. */
    static final int HUNG = 3;
    static final String PATH = "/samples/block?ms=600000";
    /** Seconds after which the valve reports a thread stuck, and interrupts it. */
    static final int THRESHOLD_S = 2;
    static final int INTERRUPT_S = 3;
    /**
     * The valve, in the Host; its check runs in the Host's background task, every second with the Host's
     * {@code backgroundProcessorDelay="1"} (by default the Engine's, every 10 s).
     */
    static final String VALVE = "<Valve className=\"org.apache.catalina.valves.StuckThreadDetectionValve\" threshold=\""
            + THRESHOLD_S + "\" interruptThreadThreshold=\"" + INTERRUPT_S + "\"/>";
    static final String HOST_ATTRIBUTES = "backgroundProcessorDelay=\"1\"";
    /** The live upload beside them: this many chunks of this many bytes, one every this many ms (6 s in all). */
    private static final int TRICKLE_CHUNKS = 10;
    private static final int TRICKLE_BYTES = 100;
    private static final int TRICKLE_EVERY_MS = 600;
    private static final Duration WINDOW = Duration.ofSeconds(6);
    private static final int QUIET_MS = 1_000;

    /** What one connector showed. */
    record Outcome(Snapshot before, Snapshot after, String fdDelta, int socketFdDelta, int otherFdDelta,
            int peakConnectorThreads, long peakBusyThreads, long busyAfter, List<Answer> hung, Answer upload,
            long interrupted, CellResult normal, double quietCpuPercent) {
    }

    /** What one client got: {@code status} 0 if no response came; {@code body} its first line, if any. */
    record Answer(int status, boolean complete, boolean closed, long millis, String body) {

        String what() {
            return (status == 0 ? "no response" : status + (complete ? " complete" : " incomplete"))
                    + (closed ? ", closed" : ", kept open");
        }
    }

    private HungServlets() {
    }

    static Outcome run(Lab lab, ServerUnderTest server, Side side) throws Exception {
        InetSocketAddress at = server.address(side);
        FaultsScenario.describe(at, "/samples/size?kb=0.1");
        Thread.sleep(500);
        Snapshot before = server.snapshot(side, true);
        Map<String, Integer> fdsBefore = server.fdKinds();
        long interruptedBefore = interruptsLogged(server, side);
        NormalClients normal = NormalClients.start(at, WINDOW);
        Thread.sleep(1_000); // the normal clients' warm-up
        List<Answer> hung = new ArrayList<>();
        Answer[] upload = new Answer[1];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < HUNG; i++) {
            threads.add(start("hung-client-" + i, () -> {
                Answer a = hang(at);
                synchronized (hung) {
                    hung.add(a);
                }
            }));
        }
        threads.add(start("trickled-upload", () -> upload[0] = trickledUpload(at)));
        int peakThreads = 0;
        long peakBusy = 0;
        while (threads.stream().anyMatch(Thread::isAlive)) {
            peakThreads = Math.max(peakThreads, server.snapshot(side, false).connectorThreads());
            peakBusy = Math.max(peakBusy, server.busyThreads(side));
            Thread.sleep(250);
        }
        for (Thread t : threads) {
            t.join();
        }
        CellResult normalResult = normal.result();
        double cpu0 = server.cpuSeconds();
        long t0 = System.nanoTime();
        Thread.sleep(QUIET_MS);
        double quietCpu = 100 * (server.cpuSeconds() - cpu0) / ((System.nanoTime() - t0) / 1e9);
        Snapshot after = server.snapshot(side, true);
        long busyAfter = server.busyThreads(side);
        Map<String, Integer> fdsAfter = server.fdKinds();
        String fdDelta = ServerUnderTest.fdDelta(fdsBefore, fdsAfter);
        int socketFdDelta = fdsAfter.getOrDefault("socket", 0) - fdsBefore.getOrDefault("socket", 0);
        int otherFdDelta = after.fds() - before.fds() - socketFdDelta;
        long interrupted = interruptsLogged(server, side) - interruptedBefore;
        lab.log("  %s hung servlets: %s; trickled upload: %s; interrupted %d; normal clients %s; CPU while quiet"
                + " %.1f%%; after: %s", side.label(), summary(hung), describe(upload[0]), interrupted,
                NormalClients.describe(normalResult), quietCpu, after.brief());
        return new Outcome(before, after, fdDelta, socketFdDelta, otherFdDelta, peakThreads, peakBusy, busyAfter,
                List.copyOf(hung), upload[0], interrupted, normalResult, quietCpu);
    }

    private static Thread start(String name, Runnable client) {
        Thread t = new Thread(client, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Interrupts the valve has made so far in the connector's threads (their names carry its port), from its log
     * lines: its MBean shows only the threads stuck now; {@code interruptedThreadsCount} has a getter but no MBean
     * attribute.
     */
    private static long interruptsLogged(ServerUnderTest server, Side side) throws IOException {
        return server.distinctLogLines("StuckThreadDetectionValve$MonitoredThread.interruptIfStuck",
                "-" + server.port(side) + "-");
    }

    /** One request that never returns by itself; waits up to 30 s for what comes back. */
    private static Answer hang(InetSocketAddress at) {
        long t0 = System.nanoTime();
        try (RawConnection c = RawConnection.open(at)) {
            c.write("GET " + PATH + " HTTP/1.1\r\nHost: x\r\n\r\n");
            return answer(c, t0);
        } catch (IOException e) {
            return new Answer(0, false, true, (System.nanoTime() - t0) / 1_000_000, e.getMessage());
        }
    }

    /** A POST whose body comes {@value #TRICKLE_BYTES} bytes at a time, for longer than the interrupt threshold. */
    private static Answer trickledUpload(InetSocketAddress at) {
        long t0 = System.nanoTime();
        try (RawConnection c = RawConnection.open(at)) {
            c.write("POST /samples/upload HTTP/1.1\r\nHost: x\r\nContent-Length: " + TRICKLE_CHUNKS * TRICKLE_BYTES
                    + "\r\n\r\n");
            for (int i = 0; i < TRICKLE_CHUNKS; i++) {
                Thread.sleep(TRICKLE_EVERY_MS);
                try {
                    c.write(new byte[TRICKLE_BYTES]);
                } catch (IOException cut) {
                    break; // the server closed: read what it said, if anything
                }
            }
            return answer(c, t0);
        } catch (IOException e) {
            return new Answer(0, false, true, (System.nanoTime() - t0) / 1_000_000, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, false, false, 0, "interrupted");
        }
    }

    private static Answer answer(RawConnection c, long t0) throws IOException {
        RawConnection.Response r = c.read(30_000);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        boolean closed = r.complete() ? c.closedByServer(300) : !"timeout".equals(r.error());
        String body = r.body().lines().findFirst().orElse("");
        return new Answer(r.status(), r.complete(), closed, millis, body);
    }

    private static String describe(Answer a) {
        return a.what() + (a.body.isEmpty() || a.status == 0 ? "" : " (" + a.body + ")")
                + String.format(" after %.1f s", a.millis / 1000.0);
    }

    /** E.g. {@code 3 x 503 complete, closed (3.4-3.9 s)}: the clients grouped by what they got. */
    static String summary(List<Answer> answers) {
        Map<String, List<Long>> byWhat = new TreeMap<>();
        for (Answer a : answers) {
            byWhat.computeIfAbsent(a.what(), k -> new ArrayList<>()).add(a.millis());
        }
        StringBuilder sb = new StringBuilder();
        byWhat.forEach((what, millis) -> {
            long min = millis.stream().mapToLong(Long::longValue).min().orElse(0);
            long max = millis.stream().mapToLong(Long::longValue).max().orElse(0);
            sb.append(sb.length() == 0 ? "" : "; ").append(millis.size()).append(" x ").append(what).append(" (")
                    .append(String.format("%.1f", min / 1000.0));
            if (max / 100 != min / 100) {
                sb.append('-').append(String.format("%.1f", max / 1000.0));
            }
            sb.append(" s)");
        });
        return sb.toString();
    }

    static void report(Findings f, String name, Map<Side, Outcome> out) {
        Outcome s = out.get(Side.STOCK);
        Outcome o = out.get(Side.OURS);
        String r = "hung servlet: ";
        f.add(name, r + HUNG + " x `" + PATH + "`: what the clients got (s after the request)", summary(s.hung),
                summary(o.hung), FaultVerdicts.answers(s.hung.stream().map(Answer::what).toList(),
                        o.hung.stream().map(Answer::what).toList(), s.hung.stream().allMatch(Answer::complete),
                        o.hung.stream().allMatch(Answer::complete)));
        f.add(name, r + "interrupts the valve made in the connector's threads (its log lines; hung requests and the"
                + " upload)", s.interrupted, o.interrupted, o.interrupted >= HUNG ? "ok" : "worse");
        f.addSame(name, r + "beside them, a live upload trickled over " + TRICKLE_CHUNKS * TRICKLE_EVERY_MS / 1000
                + " s (" + TRICKLE_BYTES + " B every " + TRICKLE_EVERY_MS + " ms)", describe(s.upload),
                describe(o.upload));
        f.add(name, r + "connector threads before -> peak while hung -> after", s.before.connectorThreads() + " -> "
                + s.peakConnectorThreads + " -> " + s.after.connectorThreads(), o.before.connectorThreads() + " -> "
                + o.peakConnectorThreads + " -> " + o.after.connectorThreads(), FaultVerdicts.threads(
                        s.before.connectorThreads(), s.after.connectorThreads(), o.before.connectorThreads(),
                        o.after.connectorThreads(), o.busyAfter));
        f.add(name, r + "busy threads (Tomcat's currentThreadsBusy) at peak -> after", s.peakBusyThreads + " -> "
                + s.busyAfter, o.peakBusyThreads + " -> " + o.busyAfter, o.busyAfter == 0 ? "ok" : "worse");
        f.addLowerIsBetter(name, r + "normal clients meanwhile: p99 ms", s.normal.latencyMillis(99),
                o.normal.latencyMillis(99), 2);
        f.addSame(name, r + "normal clients meanwhile: errors", s.normal.errorsText(), o.normal.errorsText());
        f.addLowerIsBetter(name, r + "server CPU while quiet afterwards (% of a core, " + QUIET_MS / 1000 + " s)",
                s.quietCpuPercent, o.quietCpuPercent, 5);
        f.add(name, r + "connections before -> after (client connections)", s.before.connections() + " -> "
                + s.after.connections(), o.before.connections() + " -> " + o.after.connections(),
                FaultVerdicts.leftBehind(s.before.connections(), s.after.connections(), o.before.connections(),
                        o.after.connections()));
        f.add(name, r + "fds before -> after (by kind, after - before)", s.before.fds() + " -> " + s.after.fds()
                + " (" + s.fdDelta + ")", o.before.fds() + " -> " + o.after.fds() + " (" + o.fdDelta + ")",
                FaultVerdicts.fds(s.socketFdDelta, o.socketFdDelta, o.otherFdDelta, o.after.connectorThreads()
                        - o.before.connectorThreads()));
        f.add(name, r + "write-behind bytes after", "n/a", o.after.writeBehindBytes(),
                o.after.writeBehindBytes() == 0 ? "ok" : "worse");
    }

    static String note(int timeoutMs) {
        return "Hung servlets (server `faults-hung`, loopback): " + HUNG + " requests to `" + PATH + "` (Thread.sleep;"
                + " the servlet answers an interrupt with 503) on each connector in turn, and beside them one upload"
                + " trickled for " + TRICKLE_CHUNKS * TRICKLE_EVERY_MS / 1000 + " s, while "
                + NormalClients.CONNECTIONS + " normal keep-alive clients ask 0.1 KB (" + NormalClients.THINK.toMillis()
                + " ms mean think time, " + WINDOW.toSeconds() + " s window starting with the hung requests). Tomcat's"
                + " `StuckThreadDetectionValve` in the Host with `threshold=\"" + THRESHOLD_S
                + "\" interruptThreadThreshold=\"" + INTERRUPT_S + "\"` and the Host's `backgroundProcessorDelay=\"1\"`"
                + " (the valve looks every second); both connectors with `connectionTimeout=\"" + timeoutMs + "\"`."
                + " Peaks: maxima of samples every 250 ms; CPU while quiet: the whole server's, over the "
                + QUIET_MS / 1000 + " s after the last of these clients (a thread left spinning by an interrupt would"
                + " show here); after: then, snapshot after two full GCs. Why stock's hung clients get no response:"
                + " the servlet re-asserts the interrupt before answering 503, Tomcat's ErrorReportValve flushes the"
                + " error page while the interrupt is still set, and stock NIO's NioChannel refuses to write from an"
                + " interrupted thread (\"The current thread was interrupted\", CLOSE_CONNECTION_NOW at FINE level);"
                + " ours writes the 503. The trickled upload: stock's blocking read carries on through the valve's"
                + " interrupts (one a second), and so does ours since commit a056c44 (before, ours ended the request's"
                + " wait for the socket on the interrupt and closed the connection without a response). Threads: ok"
                + " when ours is back to its start"
                + " or grew no more than stock, or when none of ours runs a request and ours has no more than stock:"
                + " a thread ours started for a hand-off stays parked 60 s, with its socket waiter's selector (an"
                + " epoll and an eventfd fd, allowed per added thread in the fds verdict).";
    }
}
