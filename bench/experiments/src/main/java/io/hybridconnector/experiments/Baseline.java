package io.hybridconnector.experiments;

import java.util.List;
import java.util.Map;

/**
 * Figures to print beside ours: the papers' (seeds/000, seeds/004) and the stock connectors measured on this machine
 * before the project had code (shared/anchors/baseline-stock-connectors.md, wrk, Temurin 25 for the stock peers),
 * and issue 14's fairness table. Constants only.
 */
final class Baseline {

    private Baseline() {
    }

    /** Anchors, loopback matrix: "variant|kb|c" -> {cs/req, CPU us/req}. */
    static final Map<String, double[]> MATRIX = Map.ofEntries(
            Map.entry("nio|0.1|8", new double[] { 0.369, 21 }), Map.entry("nio|0.1|100", new double[] { 0.073, 23 }),
            Map.entry("nio|0.1|1000", new double[] { 0.224, 27 }), Map.entry("nio|10|8", new double[] { 1.35, 103 }),
            Map.entry("nio|10|100", new double[] { 0.066, 78 }), Map.entry("nio|10|1000", new double[] { 0.217, 105 }),
            Map.entry("nio|100|8", new double[] { 1.74, 829 }), Map.entry("nio|100|100", new double[] { 0.573, 758 }),
            Map.entry("nio|100|1000", new double[] { 0.464, 657 }),
            Map.entry("nio2|0.1|8", new double[] { 0.870, 28 }), Map.entry("nio2|0.1|100", new double[] { 0.306, 24 }),
            Map.entry("nio2|0.1|1000", new double[] { 0.118, 28 }), Map.entry("nio2|10|8", new double[] { 1.94, 103 }),
            Map.entry("nio2|10|100", new double[] { 0.212, 102 }),
            Map.entry("nio2|10|1000", new double[] { 0.095, 99 }), Map.entry("nio2|100|8", new double[] { 2.03, 618 }),
            Map.entry("nio2|100|100", new double[] { 0.709, 667 }),
            Map.entry("nio2|100|1000", new double[] { 0.467, 753 }),
            Map.entry("nio-vt|0.1|8", new double[] { 2.52, 37 }),
            Map.entry("nio-vt|0.1|100", new double[] { 1.44, 33 }),
            Map.entry("nio-vt|0.1|1000", new double[] { 1.60, 43 }),
            Map.entry("nio-vt|10|8", new double[] { 3.51, 111 }),
            Map.entry("nio-vt|10|100", new double[] { 3.37, 104 }),
            Map.entry("nio-vt|10|1000", new double[] { 3.22, 135 }),
            Map.entry("nio-vt|100|8", new double[] { 4.20, 819 }),
            Map.entry("nio-vt|100|100", new double[] { 4.32, 742 }),
            Map.entry("nio-vt|100|1000", new double[] { 4.44, 778 }),
            Map.entry("jetty|0.1|100", new double[] { 0.154, 28 }), Map.entry("jetty|10|100", new double[] { 0.252, 95 }),
            Map.entry("jetty|100|100", new double[] { 0.541, 701 }));

    /**
     * Anchors, write-spin (100 KB, c=100, 16 KB server send buffer, veth): "variant|condition" -> {req/s, CPU us/req,
     * writes/req, EAGAIN/req, futex/req (NaN: not in the summary), cs/req}.
     */
    static final Map<String, double[]> WRITESPIN = Map.ofEntries(
            Map.entry("nio|rmem 4096", new double[] { 587, 1530, 50.7, 8.43, 28.1, 12.3 }),
            Map.entry("nio2|rmem 4096", new double[] { 466, 1530, 50.8, 10.6, 34.8, 19.3 }),
            Map.entry("nio-vt|rmem 4096", new double[] { 505, 1840, 50.4, 11.1, 87.7, 74.6 }),
            Map.entry("jetty|rmem 4096", new double[] { 627, 1430, 42.4, 7.74, 15.8, 7.90 }),
            Map.entry("nio|rmem default", new double[] { 1168, 804, 14.8, 1.80, Double.NaN, 2.68 }),
            Map.entry("nio2|rmem default", new double[] { 1181, 811, 14.7, 1.69, 6.62, 3.01 }),
            Map.entry("nio-vt|rmem default", new double[] { 1007, 991, 14.7, 1.72, 25.0, 21.4 }),
            Map.entry("jetty|rmem default", new double[] { 1385, 718, 5.03, 1.02, 6.50, 2.53 }));

    /** seeds/000 Table 2: context switches x1000/s, TomcatAsync and TomcatSync: "kb|c" -> {async, sync}. */
    static final Map<String, double[]> TABLE2 = Map.of(
            "0.1|8", new double[] { 40, 16 }, "10|8", new double[] { 25, 7 }, "100|8", new double[] { 28, 2 },
            "0.1|100", new double[] { 38, 15 }, "10|100", new double[] { 26, 5 }, "100|100", new double[] { 25, 2 },
            "0.1|3200", new double[] { 37, 15 }, "10|3200", new double[] { 22, 6 }, "100|3200", new double[] { 28, 3 });

    /** seeds/000 Table 3: context switches per request by server type. */
    static final Map<String, String> TABLE3 = Map.of("nio", "4 (sTomcat-Async)", "reactor", "2 (sTomcat-Async-Fix)",
            "sync", "0 (sTomcat-Sync)", "single", "0 (SingleT-Async)", "ours", "- (ours: 0 on the fast path, issue 3)");

    /** seeds/000 Table 4 / Fig 6a: req/s at 0.1 KB, c=100, one core. */
    static final Map<String, String> FIG6_RPS = Map.of("single", "42K", "sync", "35K", "reactor", "27K",
            "nio", "22K");

    /**
     * One row of issue 14's table, as printed there (text, with its notes): the heavy load, the server's cores, light
     * p50 / p99 ms for stock NIO and ours, light and heavy req/s "stock / ours".
     */
    record FairnessRow(String scenario, String condition, String nioLatency, String oursLatency, String lightRps,
            String heavyRps) {
    }

    /**
     * Issue 14, measured before the fairness work (Tomcat 10.1.59 distribution, samples WAR, 50 keep-alive light
     * connections from `wrk --latency`, the heavy load from a second wrk, a JSP spinning the CPU, medians of 2
     * interleaved rounds of 8 s). Scenario names are {@code io.hybridconnector.bench.harness.load.Fairness.ALL}'s.
     */
    static final List<FairnessRow> FAIRNESS = List.of(
            new FairnessRow("none", "1 core", "0.53 / 2.5", "0.38 / 2.3", "85,067 / 126,146", ""),
            new FairnessRow("4 computing 20 ms", "1 core", "3.0 / 16", "81 / 173", "17,020 / 565", "137 / 49"),
            new FairnessRow("1 computing 200 ms", "1 core", "0.78 / 6.9", "201 / 402", "43,841 / 308", "4.9 / 4.9"),
            new FairnessRow("2 downloading 10 MB", "1 core", "1.5 / 15", "26 / 108", "26,849 / 1,920", "19 / 36"),
            new FairnessRow("4 sleeping 20 ms", "1 core", "0.52 / 2.1", "0.39 / 4.4 (max 19)", "87,169 / 109,755",
                    "189 / 177"),
            new FairnessRow("4 computing 20 ms", "2 cores", "1.5 / 18", "41 / 81", "26,571 / 1,219", "155 / 95"),
            new FairnessRow("1 computing 200 ms", "2 cores", "0.68 / 12", "0.33 / 383 (p90 213)", "56,607 / 52,784",
                    "4.9 / 4.9"),
            new FairnessRow("4 sleeping 20 ms", "2 cores", "0.53 / 2.6", "0.42 / 45 (max 125)", "86,033 / 75,475",
                    "189 / 175"));
}
