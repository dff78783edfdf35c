package io.hybridconnector.experiments;

import java.util.Map;

/**
 * Figures to print beside ours: the papers' (seeds/000, seeds/004) and the stock connectors measured on this machine
 * before the project had code (shared/anchors/baseline-stock-connectors.md, wrk, Temurin 25 for the stock peers).
 * Constants only.
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
}
