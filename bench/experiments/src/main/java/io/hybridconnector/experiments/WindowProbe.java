package io.hybridconnector.experiments;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import javax.management.ObjectName;

import io.hybridconnector.bench.harness.load.Probe;
import io.hybridconnector.bench.harness.measure.ServerProbe;

/**
 * The bench's {@link ServerProbe} (/proc CPU and context switches, perf syscalls, server CPU busy share) plus what
 * the paper's Table 5 and the write-spin issue add: user and system CPU apart, and our MBean's counters. The MBean
 * is read just outside perf's enabled span (before it is switched on, after it is switched off) so that the JMX
 * round trip's own syscalls are not counted. Runs on the load generator's thread.
 */
final class WindowProbe implements Probe {

    private final ServerProbe server;
    private final long pid;
    private final JmxCounters jmx;
    private final ObjectName bean;
    long[] userSysStart;
    long[] userSysEnd;
    Map<String, Long> beanStart;
    Map<String, Long> beanEnd;
    Map<String, Long> beanOuterStart;
    Map<String, Long> beanOuterEnd;
    String problem;
    long startNanos;
    long endNanos;

    WindowProbe(ServerProbe server, long pid, JmxCounters jmx, ObjectName bean) {
        this.server = server;
        this.pid = pid;
        this.jmx = jmx;
        this.bean = bean;
    }

    @Override
    public void beforeWarmup() {
        server.beforeWarmup();
    }

    /**
     * MBean, perf on, MBean again, then /proc last: CPU and context switches cover the load's window tightly (at
     * c=1000 the server keeps working through its backlog while the load pauses here, and that work must not be
     * charged to the window's requests). The MBean is read on both sides of each perf switch, so that what perf
     * counted lies between the inner delta (read after on, before off) and the outer one (before on, after off): a
     * spinning writer makes thousands of calls during one JMX round trip, so no single read lines up with perf.
     */
    @Override
    public void measureStart() {
        long t0 = System.nanoTime();
        beanOuterStart = readBean();
        server.perfOn();
        beanStart = readBean();
        userSysStart = userSys(pid);
        server.procStart();
        startNanos = System.nanoTime() - t0;
    }

    /** /proc first, then MBean, perf off, MBean (the mirror image of the start). */
    @Override
    public void measureEnd() {
        long t0 = System.nanoTime();
        server.procEnd();
        userSysEnd = userSys(pid);
        beanEnd = readBean();
        server.perfOff();
        beanOuterEnd = readBean();
        endNanos = System.nanoTime() - t0;
    }

    private Map<String, Long> readBean() {
        if (jmx == null) {
            return null;
        }
        try {
            return jmx.read(bean);
        } catch (IOException e) {
            problem = "JMX: " + e.getMessage();
            return null;
        }
    }

    /** utime and stime in clock ticks: fields 14 and 15 of /proc/PID/stat. */
    static long[] userSys(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return new long[] { Long.parseLong(f[11]), Long.parseLong(f[12]) };
        } catch (IOException | RuntimeException e) {
            return new long[] { 0, 0 };
        }
    }
}
