package io.hybridconnector.experiments;

import java.util.List;
import java.util.Optional;

/**
 * One server variant of the experiments: a peer (stock NIO, NIO2, NIO on virtual threads, Jetty 12) or one of our
 * connector's thread model / write strategy combinations, with the paper's name for it. Immutable.
 *
 * @param id       short name used in CSV rows, tables and plots
 * @param paper    the server type of seeds/000 this variant stands for, or a plain description
 * @param host     which process serves it
 * @param protocol Tomcat protocol class (Tomcat hosts only)
 * @param attrs    extra Connector attributes, verbatim
 */
public record Variant(String id, String paper, Host host, String protocol, String attrs) {

    /**
     * The processes of one phase: one Tomcat on the default JDK, a second one for the thread-per-connection variants
     * (their thousand threads would otherwise make every window's /proc and perf bookkeeping of the first one slow),
     * one on a JDK 21+ (virtual threads), one Jetty.
     */
    public enum Host { TOMCAT, TOMCAT_SYNC, TOMCAT_VT, JETTY }

    static final String NIO = "org.apache.coyote.http11.Http11NioProtocol";
    static final String NIO2 = "org.apache.coyote.http11.Http11Nio2Protocol";
    static final String OURS = "io.hybridconnector.HybridHttp11Protocol";
    /** The baseline's stock settings (anchors/baseline-stock-connectors.md): persistent connections, deep backlog. */
    private static final String STOCK = "maxKeepAliveRequests='-1' acceptCount='1024'";

    public static Variant ours(String id, String paper, String attrs) {
        return new Variant(id, paper, attrs.contains("threadModel='sync'") ? Host.TOMCAT_SYNC : Host.TOMCAT, OURS,
                "acceptCount='1024' " + attrs);
    }

    /**
     * Every variant of the matrix; {@code syncThreads} must cover the highest concurrency, since sTomcat-Sync holds
     * one thread per connection.
     */
    public static List<Variant> all(int syncThreads) {
        return List.of(
                new Variant("nio", "sTomcat-Async (stock Http11NioProtocol)", Host.TOMCAT, NIO, STOCK),
                new Variant("nio2", "stock Http11Nio2Protocol", Host.TOMCAT, NIO2, STOCK),
                new Variant("nio-vt", "stock NIO, useVirtualThreads (JDK 21+)", Host.TOMCAT_VT, NIO,
                        STOCK + " useVirtualThreads='true'"),
                new Variant("jetty", "Jetty 12 (ee10 servlet)", Host.JETTY, null, ""),
                ours("ours", "ours default (hybrid threads, hybrid writes ~ HybridNetty)",
                        "threadModel='hybrid' writeStrategy='hybrid'"),
                ours("ours-direct", "ours, writeStrategy=direct (SingleT-Async writes)",
                        "threadModel='hybrid' writeStrategy='direct'"),
                ours("ours-spin", "ours, writeStrategy=spin (NettyServer writes)",
                        "threadModel='hybrid' writeStrategy='spin'"),
                ours("reactor", "sTomcat-Async-Fix (threadModel=reactor)",
                        "threadModel='reactor'"),
                ours("single", "SingleT-Async 1-copy (threadModel=single, direct writes)",
                        "threadModel='single' threads='1' writeStrategy='direct'"),
                ours("single-spin", "NettyServer (threadModel=single, spin writes)",
                        "threadModel='single' threads='1' writeStrategy='spin'"),
                ours("sync", "sTomcat-Sync (threadModel=sync, thread per connection)",
                        "threadModel='sync' threads='" + syncThreads + "'"));
    }

    public static Optional<Variant> find(List<Variant> all, String id) {
        return all.stream().filter(v -> v.id.equals(id)).findFirst();
    }

    public boolean isOurs() {
        return OURS.equals(protocol);
    }
}
