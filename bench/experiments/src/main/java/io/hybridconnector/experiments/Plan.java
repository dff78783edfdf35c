package io.hybridconnector.experiments;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.hybridconnector.bench.harness.load.Fairness;

/**
 * What a profile runs: phases (each with its own server processes), their cells and timings. Pure data, built once
 * on the main thread.
 */
final class Plan {

    /** A request workload: the samples' size or mix servlet. */
    record Workload(String label, String path, long expectedBytes) {

        static Workload size(String kb) {
            return new Workload("size " + kb + " KB", "/samples/size?kb=" + kb, Math.round(Double.parseDouble(kb) * 1024));
        }

        /**
         * The samples' {@code /fixed}: a body made once per size, so that a cell measures the connector and not how
         * each JVM compiled the servlet's body loop (at 100 KB that loop is most of {@code size}'s CPU).
         */
        static Workload fixed(String kb) {
            return new Workload("fixed " + kb + " KB", "/samples/fixed?kb=" + kb,
                    Math.round(Double.parseDouble(kb) * 1024));
        }

        /** The fairness cell's light load (50 connections, 0.1 KB), named after the heavy load beside it. */
        static Workload beside(Fairness.Scenario heavy) {
            return new Workload(BESIDE + heavy.name(), Fairness.LIGHT_PATH, Fairness.LIGHT_BYTES);
        }

        static Workload mix(int heavyPercent) {
            return new Workload("mix " + heavyPercent + "% heavy",
                    "/samples/mix?heavyPercent=" + heavyPercent + "&heavyKb=100&lightKb=0.1", -1);
        }

        /** KB of a size workload, NaN for a mix. */
        double kb() {
            return label.startsWith("size ") ? Double.parseDouble(label.split(" ")[1]) : Double.NaN;
        }

        int heavyPercent() {
            return label.startsWith("mix ") ? Integer.parseInt(label.split(" ")[1].replace("%", "")) : -1;
        }
    }

    /**
     * One cell: a workload at a concurrency under a condition, for some variants.
     *
     * @param condition  "loopback", or the client's {@code tcp_rmem} in the netns phase ("rmem 4096", "rmem default")
     * @param think      mean think time per connection (seeds/004), zero for the papers' closed loop
     * @param beside     the heavy load run at the same time on other connections (fairness cells), or null
     */
    record Cell(String experiment, String condition, Workload workload, int concurrency, Duration think,
            List<String> variants, Fairness.Scenario beside) {

        Cell(String experiment, String condition, Workload workload, int concurrency, Duration think,
                List<String> variants) {
            this(experiment, condition, workload, concurrency, think, variants, null);
        }
    }

    /**
     * A set of cells that share server processes. {@code netns}: server and client in their own namespaces.
     * {@code serverCores}: 1 = every server pinned to the server CPU; 2 = the server CPU and the load generator's
     * (servers started on both, so that they size their pools and loops for two CPUs).
     */
    record Phase(String name, boolean netns, List<Variant> variants, List<Cell> cells, int rounds,
            Duration cellWarmup, Duration window, Duration warmupPerVariant, boolean perf, int serverCores) {

        /** Selected by {@code --phases} with its name or its group (the name before a '-': "fairness"). */
        boolean selectedBy(List<String> names) {
            return names == null || names.contains(name) || names.contains(name.split("-")[0]);
        }

        Set<String> usedVariants() {
            Set<String> s = new LinkedHashSet<>();
            cells.forEach(c -> s.addAll(c.variants()));
            return s;
        }
    }

    final String profile;
    final List<Phase> phases;

    private Plan(String profile, List<Phase> phases) {
        this.profile = profile;
        this.phases = phases;
    }

    static final String BESIDE = "0.1 KB beside ";
    static final String ONE_CORE = "1 core";
    static final String TWO_CORES = "2 cores";
    static final String RMEM_SMALL = "rmem 4096";
    static final String RMEM_DEFAULT = "rmem default";
    static final String RMEM_DEFAULT_VALUE = "4096 131072 6291456";

    /** The value written to the client namespace's {@code net.ipv4.tcp_rmem} for a condition. */
    static String rmemValue(String condition) {
        if (condition.equals(RMEM_DEFAULT)) {
            return RMEM_DEFAULT_VALUE;
        }
        String n = condition.substring("rmem ".length());
        return n + " " + n + " " + n;
    }

    static Plan of(String profile) {
        boolean full = profile.equals("full");
        if (!full && !profile.equals("quick")) {
            throw new IllegalArgumentException("--profile quick|full, got " + profile);
        }
        List<Phase> phases = new ArrayList<>();
        int maxC = 1000;
        List<Variant> all = Variant.all(maxC + 100);

        // Phase 1, loopback: the 0.1/10/100 KB x c=8/100/1000 matrix for every peer and variant (Tables 2, 3, 5, 6;
        // Figs 4, 6, 14). The paper's c=3200 is left out: 3200 threads for sTomcat-Sync plus 3200 connects per window
        // cost minutes on this 2-CPU machine; c=1000 stands in for it in Table 2.
        List<String> matrixVariants = full
                ? List.of("nio", "nio2", "nio-vt", "jetty", "ours", "ours-direct", "reactor", "single", "single-spin",
                        "sync")
                : List.of("nio", "nio2", "nio-vt", "jetty", "ours", "ours-direct", "reactor", "single", "single-spin",
                        "sync");
        List<Cell> loop = new ArrayList<>();
        for (String kb : List.of("0.1", "10", "100")) {
            for (int c : List.of(8, 100, 1000)) {
                loop.add(new Cell("matrix", "loopback", Workload.size(kb), c, Duration.ZERO, matrixVariants));
            }
        }
        // The connectors' own cost at 100 KB: the same load with a body made once (2026-11-24: with a fresh body per
        // request the order of ours and Jetty followed each JVM's compilation of the servlet's loop).
        loop.add(new Cell("connector", "loopback", Workload.fixed("100"), 100, Duration.ZERO,
                full ? List.of("nio", "nio2", "jetty", "ours", "sync") : List.of("nio", "jetty", "ours")));
        phases.add(new Phase("loopback", false, all, loop, full ? 3 : 1, ms(full ? 400 : 300), ms(full ? 1200 : 800),
                ms(full ? 5000 : 1000), true, 1));

        // Phase 2, write-spin without netem: server namespace with a 16 KB send buffer, client namespace with a small
        // (4 KB) or default receive buffer over veth.
        List<Cell> ns = new ArrayList<>();
        List<String> spinVariants = full
                ? List.of("nio", "nio2", "nio-vt", "jetty", "ours", "ours-direct", "ours-spin", "single", "single-spin",
                        "sync")
                : List.of("nio", "nio-vt", "jetty", "ours", "ours-direct", "ours-spin");
        for (String cond : List.of(RMEM_SMALL, RMEM_DEFAULT)) {
            ns.add(new Cell("writespin", cond, Workload.size("100"), 100, Duration.ZERO, spinVariants));
        }
        ns.add(new Cell("mix", RMEM_SMALL, Workload.mix(2), 100, Duration.ZERO, full
                ? List.of("nio", "nio-vt", "jetty", "ours", "ours-direct", "ours-spin", "single", "single-spin")
                : List.of("nio", "jetty", "ours", "single", "single-spin")));
        // Fig 12: client receive buffer 4 KB .. 100 KB (4 KB comes from the writespin cell where the variant is there)
        List<String> fig12 = full ? List.of("single", "sync", "ours", "nio") : List.of("single", "sync", "ours");
        for (String rmem : full ? List.of("4096", "16384", "65536", "102400") : List.of("4096", "16384", "102400")) {
            List<String> vs = new ArrayList<>(fig12);
            if (rmem.equals("4096")) {
                vs.removeAll(spinVariants);
            }
            if (!vs.isEmpty()) {
                ns.add(new Cell("rmem", "rmem " + rmem, Workload.size("100"), 100, Duration.ZERO, vs));
            }
        }
        // Fig 16: share of heavy requests, with the small window ("distant client") and without
        List<String> fig16 = List.of("single", "single-spin", "ours");
        for (String cond : full ? List.of(RMEM_SMALL, RMEM_DEFAULT) : List.of(RMEM_SMALL)) {
            List<Integer> shares = !full ? List.of(0, 20, 100)
                    : cond.equals(RMEM_SMALL) ? List.of(0, 2, 10, 50, 100) : List.of(0, 50, 100);
            for (int pct : shares) {
                if (pct == 2 && cond.equals(RMEM_SMALL)) {
                    continue; // the mix cell has these three variants at 2 % already
                }
                ns.add(new Cell("heavyshare", cond, Workload.mix(pct), 100, Duration.ZERO, fig16));
            }
        }
        // The JIT needs tens of thousands of requests per code path: at 500-1,500 req/s through a small window that is
        // many seconds. Measured on one Tomcat: ours at 100 KB / default window cost 2,387 us/req in the first 2 s of
        // load, 1,117-1,255 in the next 6 s (C2 compiling on the server's core) and 540-553 once compiled.
        phases.add(new Phase("netns", true, all, ns, full ? 3 : 1, ms(400), ms(full ? 1200 : 1000),
                ms(full ? 12000 : 4000), true, 1));

        // Phase 3, seeds/004 Fig 5: clients that think (exponential, mean 200 ms) and hold two connections each; ours
        // at 16..2048 threads against the thread-per-connection model's grid of threads x keepAliveTimeout.
        List<Variant> grid = new ArrayList<>();
        for (int t : full ? List.of(16, 64, 256, 1024, 2048) : List.of(16, 256, 2048)) {
            grid.add(Variant.ours("ours-t" + t, "ours, threads=" + t, "threads='" + t + "'"));
        }
        for (int t : full ? List.of(64, 256, 1024) : List.of(64, 1024)) {
            for (String kat : full ? List.of("200", "1000", "-1") : List.of("200", "-1")) {
                grid.add(Variant.ours("sync-t" + t + "-k" + (kat.equals("-1") ? "inf" : kat),
                        "thread per connection, threads=" + t + ", keepAliveTimeout=" + kat + " ms",
                        "threadModel='sync' threads='" + t + "' keepAliveTimeout='" + kat + "'"));
            }
        }
        List<Cell> think = List.of(new Cell("threads", "loopback", Workload.size("10"), full ? 1000 : 800,
                ms(200), grid.stream().map(Variant::id).toList()));
        // No perf here: Fig 5 needs req/s, latency, CPU and switches (/proc), and perf attaching to a JVM with
        // thousands of threads takes seconds per window on this machine.
        phases.add(new Phase("threads", false, grid, think, full ? 2 : 1, ms(full ? 2000 : 1500),
                ms(full ? 3000 : 2000), ms(full ? 2000 : 1500), false, 1));

        // Phases 4 and 5, issue 14's fairness cell: 50 light connections beside each heavy load, server on one core,
        // then on two (sharing the load generator's CPU). Quick: one round, and on two cores only the three
        // 2-core rows plus the light load alone, stock NIO and ours (one Tomcat): about 3 minutes with start-ups.
        // Full: 3 rounds of 5 s windows, every peer on both: about 16 minutes.
        List<String> fairPeers = List.of("nio", "nio-vt", "jetty", "ours");
        phases.add(fairness("fairness", ONE_CORE, Fairness.ALL, fairPeers, all, full));
        phases.add(fairness("fairness-2cores", TWO_CORES, full ? Fairness.ALL
                : Fairness.ALL.stream().filter(s -> !s.name().contains("10 MB")).toList(),
                full ? fairPeers : List.of("nio", "ours"), all, full));
        return new Plan(profile, phases);
    }

    /**
     * Window and warm-up: the main job's 5 s windows in full (a 200 ms request completes 25 times in one), 2 s in
     * quick. No perf: the figures are latency and throughput; /proc CPU and our MBean's hand-offs by cause come along.
     */
    private static Phase fairness(String name, String condition, List<Fairness.Scenario> scenarios,
            List<String> variants, List<Variant> all, boolean full) {
        List<Cell> cells = new ArrayList<>();
        for (Fairness.Scenario s : scenarios) {
            cells.add(new Cell("fairness", condition, Workload.beside(s), Fairness.LIGHT_CONNECTIONS, Duration.ZERO,
                    variants, s));
        }
        return new Phase(name, false, all, cells, full ? 3 : 1, ms(full ? 1000 : 500), ms(full ? 5000 : 2000),
                ms(full ? 8000 : 3000), false, condition.equals(TWO_CORES) ? 2 : 1);
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    /** Windows in the plan, for progress and an estimate. */
    int windows() {
        return phases.stream().mapToInt(p -> p.rounds() * p.cells().stream().mapToInt(c -> c.variants().size()).sum())
                .sum();
    }

    /** Seconds the plan should take, not counting server start-up. */
    double estimatedSeconds() {
        double s = 0;
        for (Phase p : phases) {
            int per = p.cells().stream().mapToInt(c -> c.variants().size()).sum();
            s += p.rounds() * per * (p.cellWarmup().toMillis() + p.window().toMillis() + 1200) / 1000.0;
            s += p.usedVariants().size() * (p.warmupPerVariant().toMillis() + 500) / 1000.0 + 25;
        }
        return s;
    }
}
