package io.hybridconnector.classify;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * How long the calling thread was <em>not</em> blocked: time on a CPU plus time waiting in the run queue for one.
 * Subtracted from the wall time of a request it leaves the time the request waited (sleep, lock, JDBC). On Linux
 * the kernel keeps both ({@code /proc/thread-self/schedstat}); elsewhere only CPU time is known, and a thread that
 * waited for a busy CPU looks blocked.
 */
public final class ThreadTimes {

    private static final Path SCHEDSTAT = Paths.get("/proc/thread-self/schedstat");
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final List<GarbageCollectorMXBean> GCS = ManagementFactory.getGarbageCollectorMXBeans();
    private static final boolean SCHEDSTAT_READABLE = readSchedstat() >= 0;

    private ThreadTimes() {
    }

    /** @return on-CPU plus run-queue nanoseconds of the calling thread since it started */
    public static long notBlockedNanos() {
        if (SCHEDSTAT_READABLE) {
            long n = readSchedstat();
            if (n >= 0) {
                return n;
            }
        }
        return THREADS.getCurrentThreadCpuTime();
    }

    /**
     * @return the JVM's accumulated garbage-collection time in milliseconds: a request timed across a collection
     *         waited for the collector, not for something of its own, and tells nothing about its class
     */
    public static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : GCS) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    /** "<on-cpu ns> <run-queue ns> <slices>" */
    private static long readSchedstat() {
        try {
            byte[] b = Files.readAllBytes(SCHEDSTAT);
            long cpu = 0;
            long queue = 0;
            int i = 0;
            for (; i < b.length && b[i] != ' '; i++) {
                cpu = cpu * 10 + (b[i] - '0');
            }
            for (i++; i < b.length && b[i] != ' '; i++) {
                queue = queue * 10 + (b[i] - '0');
            }
            return cpu + queue;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
