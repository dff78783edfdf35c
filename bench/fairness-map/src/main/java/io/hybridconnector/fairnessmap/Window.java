package io.hybridconnector.fairnessmap;

import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

import io.hybridconnector.bench.harness.load.CellResult;
import io.hybridconnector.bench.harness.load.Fairness;
import io.hybridconnector.bench.harness.measure.ServerProbe;

/**
 * What one measured window of one cell saw on one connector: the light and the heavy load's figures, the server's
 * CPU and the host's steal time; one row of {@code windows.csv}. Immutable.
 *
 * @param connector       {@code nio} or {@code ours}
 * @param lightRps        light responses per second in the window
 * @param heavyRequests   heavy responses completed in the window
 * @param errors          light and heavy errors in the window, by kind (e.g. {@code heavy:timeout=2}), or "0"
 * @param clientCpu       the busier load generator thread's CPU, as a share of the window (near 1: client-bound)
 * @param tomcatCpu       Tomcat's CPU time as a share of one CPU over the window
 * @param serverCpuBusy   share of the server's CPU (all CPUs when not pinned) busy with anything, Tomcat included
 * @param steal           host steal time of all CPUs over the window, as a share of their time
 */
record Window(Cell cell, String connector, int round, double lightRps, double lightP50, double lightP99,
        double lightMax, double heavyRps, long heavyRequests, String errors, double clientCpu, double tomcatCpu,
        double serverCpuBusy, double steal) {

    static final List<String> CSV_HEADER = List.of("cores", "heavy_kind", "heavy_ms", "heavy_connections", "round",
            "connector", "light_rps", "light_p50_ms", "light_p99_ms", "light_max_ms", "heavy_rps", "heavy_requests",
            "errors", "client_cpu_share", "tomcat_cpu_share", "server_cpu_busy", "host_steal");

    static Window of(Cell cell, Fairness.Result r, ServerProbe.Delta server, double steal) {
        CellResult light = r.light();
        CellResult heavy = r.heavy();
        double window = light.windowNanos();
        String errors = errorsText(light, heavy);
        return new Window(cell, r.connector(), r.round(), light.requestsPerSecond(), light.latencyMillis(50),
                light.latencyMillis(99), light.latencyMillis(100), heavy.requestsPerSecond(), heavy.requests(),
                errors, Math.max(light.clientCpuShare(), heavy.clientCpuShare()), server.cpuNanos() / window,
                server.serverCpuBusyShare(), steal);
    }

    private static String errorsText(CellResult light, CellResult heavy) {
        StringBuilder sb = new StringBuilder();
        new TreeMap<>(light.errors()).forEach((k, v) -> sb.append(sb.length() > 0 ? " " : "").append("light:").append(k).append('=')
                .append(v));
        new TreeMap<>(heavy.errors()).forEach((k, v) -> sb.append(sb.length() > 0 ? " " : "").append("heavy:").append(k).append('=')
                .append(v));
        return sb.length() == 0 ? "0" : sb.toString();
    }

    /** A row of {@code windows.csv} back into a window (for re-plotting a run). */
    static Window fromCsv(List<String> f) {
        Cell cell = new Cell(Integer.parseInt(f.get(0)), HeavyKind.byId(f.get(1)),
                f.get(2).equals("-") ? 0 : Double.parseDouble(f.get(2)), Integer.parseInt(f.get(3)));
        return new Window(cell, f.get(5), Integer.parseInt(f.get(4)), dbl(f.get(6)), dbl(f.get(7)), dbl(f.get(8)),
                dbl(f.get(9)), dbl(f.get(10)), Long.parseLong(f.get(11)), f.get(12), dbl(f.get(13)), dbl(f.get(14)),
                dbl(f.get(15)), dbl(f.get(16)));
    }

    private static double dbl(String s) {
        return s.isEmpty() ? Double.NaN : Double.parseDouble(s);
    }

    boolean isStock() {
        return connector.equals(FairnessMap.STOCK);
    }

    List<String> csvRow() {
        return List.of(Integer.toString(cell.cores()), cell.kind().id(), cell.duration(),
                Integer.toString(cell.connections()), Integer.toString(round), connector, num(lightRps),
                num(lightP50), num(lightP99), num(lightMax), num(heavyRps), Long.toString(heavyRequests), errors,
                num(clientCpu), num(tomcatCpu), num(serverCpuBusy), num(steal));
    }

    static String num(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.6f", v);
    }
}
