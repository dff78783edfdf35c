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
 * Subtracted from the wall time of a request it leaves the time the request waited (sleep, lock, JDBC).
 * <p>
 * The two parts come from different clocks on purpose. CPU time comes from the thread's CPU clock
 * ({@code clock_gettime(CLOCK_THREAD_CPUTIME_ID)}), which the kernel brings up to date when it is read. The
 * run-queue time comes from {@code /proc/thread-self/schedstat}, whose second field the kernel adds to each time the
 * thread is switched in, so it is exact for every wait that has ended, and a thread that reads it is running. The
 * first field of that file (CPU time) is not used: it only moves at scheduler ticks and switches, so a 1 ms request
 * that ran without either would read as 0 ns of CPU and look blocked for all of its wall time. Without /proc only CPU
 * time is known, and a thread that waited for a busy CPU looks blocked.
 */
public final class ThreadTimes {

    private static final Path SCHEDSTAT = Paths.get("/proc/thread-self/schedstat");
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final List<GarbageCollectorMXBean> GCS = ManagementFactory.getGarbageCollectorMXBeans();
    private static final boolean SCHEDSTAT_READABLE = readRunQueueNanos() >= 0;

    private ThreadTimes() {
    }

    /**
     * @return on-CPU nanoseconds of {@code thread} since it started, or -1 if it ended or the JVM cannot tell (read by
     *         the stall detector about loop and pool threads)
     */
    public static long cpuNanosOf(Thread thread) {
        try {
            return THREADS.getThreadCpuTime(thread.getId());
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }

    /** @return on-CPU nanoseconds of the calling thread since it started (the thread's CPU clock) */
    public static long cpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** @return on-CPU plus run-queue nanoseconds of the calling thread since it started */
    public static long notBlockedNanos() {
        long cpu = THREADS.getCurrentThreadCpuTime();
        if (SCHEDSTAT_READABLE) {
            long queue = readRunQueueNanos();
            if (queue >= 0) {
                return cpu + queue;
            }
        }
        return cpu;
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

    /** The second field of "&lt;on-cpu ns&gt; &lt;run-queue ns&gt; &lt;slices&gt;", or -1. */
    private static long readRunQueueNanos() {
        try {
            byte[] b = Files.readAllBytes(SCHEDSTAT);
            int i = 0;
            while (i < b.length && b[i] != ' ') {
                i++;
            }
            if (i >= b.length) {
                return -1;
            }
            long queue = 0;
            for (i++; i < b.length && b[i] >= '0' && b[i] <= '9'; i++) {
                queue = queue * 10 + (b[i] - '0');
            }
            return queue;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
