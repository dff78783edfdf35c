package io.hybridconnector.classify;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
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
 * <p>
 * Each thread keeps its schedstat file open from its first look ({@code /proc/thread-self} names the thread that opens
 * it), so a look is one {@code pread}: {@link #notBlockedNanos} took 1.5-1.6 us against 9.3-9.6 us when it opened,
 * read and closed the file each time (50,000 calls after warm-up, one core, 2026-11-28). A timed request looks twice.
 * The connector's threads close theirs when they end ({@link #releaseCallingThread}).
 */
public final class ThreadTimes {

    private static final Path SCHEDSTAT = Paths.get("/proc/thread-self/schedstat");
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final List<GarbageCollectorMXBean> GCS = ManagementFactory.getGarbageCollectorMXBeans();
    /** Digits of two 64-bit counters and a third, with separators: the whole file. */
    private static final int SCHEDSTAT_BYTES = 64;
    private static final boolean SCHEDSTAT_READABLE = schedstatReadable();
    private static final ThreadLocal<SchedStat> OWN_SCHEDSTAT = new ThreadLocal<>();

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

    /**
     * Closes the calling thread's schedstat file, if it kept one. Connector threads call it as they end; a thread that
     * does not leaves the descriptor to the garbage collector.
     */
    public static void releaseCallingThread() {
        SchedStat own = OWN_SCHEDSTAT.get();
        if (own != null) {
            OWN_SCHEDSTAT.remove();
            own.close();
        }
    }

    private static boolean schedstatReadable() {
        SchedStat probe = SchedStat.open();
        if (probe == null) {
            return false;
        }
        try {
            return probe.runQueueNanos() >= 0;
        } finally {
            probe.close();
        }
    }

    /**
     * @return the calling thread's run-queue nanoseconds, or -1. A failed read lets the file go, so that the next look
     *         opens it again: an interrupt closes a {@code FileChannel} that its thread is reading (an application or
     *         Tomcat's stuck-thread valve may interrupt a request's thread), and the thread must not be left without
     *         its run-queue time from then on.
     */
    private static long readRunQueueNanos() {
        SchedStat own = OWN_SCHEDSTAT.get();
        if (own == null) {
            own = SchedStat.open();
            if (own == null) {
                return -1;
            }
            OWN_SCHEDSTAT.set(own);
        }
        long queue = own.runQueueNanos();
        if (queue < 0) {
            releaseCallingThread();
        }
        return queue;
    }

    /** One thread's open schedstat file and the buffer its looks read into. Used by that thread only. */
    private static final class SchedStat {

        private final FileChannel file;
        private final ByteBuffer bytes = ByteBuffer.allocateDirect(SCHEDSTAT_BYTES);

        private SchedStat(FileChannel file) {
            this.file = file;
        }

        /** @return the calling thread's file, or {@code null} where there is none to read */
        static SchedStat open() {
            try {
                return new SchedStat(FileChannel.open(SCHEDSTAT, StandardOpenOption.READ));
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        /** The second field of "&lt;on-cpu ns&gt; &lt;run-queue ns&gt; &lt;slices&gt;", or -1. */
        long runQueueNanos() {
            ByteBuffer b = bytes;
            b.clear();
            try {
                file.read(b, 0);
            } catch (IOException | RuntimeException e) {
                return -1;
            }
            int end = b.position();
            int i = 0;
            while (i < end && b.get(i) != ' ') {
                i++;
            }
            if (i >= end) {
                return -1;
            }
            long queue = 0;
            for (i++; i < end && b.get(i) >= '0' && b.get(i) <= '9'; i++) {
                queue = queue * 10 + (b.get(i) - '0');
            }
            return queue;
        }

        void close() {
            try {
                file.close();
            } catch (IOException e) {
                // a read-only /proc file: nothing was left to write
            }
        }
    }
}
