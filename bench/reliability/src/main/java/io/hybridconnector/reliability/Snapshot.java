package io.hybridconnector.reliability;

/**
 * The server's resources at one instant, as the scenarios compare them before and after a load. Immutable.
 *
 * @param threads          threads of the whole JVM ({@code /proc/PID/task})
 * @param connectorThreads threads whose name carries the connector's port (acceptor, poller or loops, workers)
 * @param fds              open file descriptors of the JVM ({@code /proc/PID/fd})
 * @param rssKb            resident set ({@code VmRSS})
 * @param heapBytes        heap in use (after a full GC when the snapshot asked for one)
 * @param directBytes      direct ByteBuffers the JDK accounts for
 * @param connections      the clients' connections: Tomcat's {@code ThreadPool.connectionCount} less an acceptor thread's count
 *                         of the client it is about to accept
 * @param writeBehindBytes our write-behind memory in use ({@code WriteBehindBytesNow}); -1 on stock
 */
public record Snapshot(int threads, int connectorThreads, int fds, long rssKb, long heapBytes, long directBytes,
        long connections, long writeBehindBytes) {

    public static final String CSV_HEADER = "threads,connector_threads,fds,rss_kb,heap_bytes,direct_bytes,connections,"
            + "write_behind_bytes";

    public String csv() {
        return threads + "," + connectorThreads + "," + fds + "," + rssKb + "," + heapBytes + "," + directBytes + ","
                + connections + "," + writeBehindBytes;
    }

    public String brief() {
        return "threads " + threads + " (connector " + connectorThreads + "), fds " + fds + ", RSS "
                + rssKb / 1024 + " MB, heap " + heapBytes / (1 << 20) + " MB, direct " + directBytes / 1024
                + " KB, connections " + connections + (writeBehindBytes >= 0 ? ", write-behind " + writeBehindBytes
                        + " B" : "");
    }
}
