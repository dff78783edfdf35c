package io.hybridconnector.loop;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import com.sun.management.HotSpotDiagnosticMXBean;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * The priority of a thread while it runs a request whose class computes, after its loop moved away
 * ({@code computingRequestPriority}): below normal, so that the kernel gives the loops' short requests more of a
 * shared core than one thread's equal share.
 * <p>
 * Why: the kernel shares a core per runnable thread. Beside one computing request a loop, one thread serving all of
 * its connections, gets half of the core, where stock NIO's short requests, run by several workers, got about three
 * quarters; on an Intel guest ours' light requests then had 0.82x-0.99x stock's throughput beside one request
 * computing 200 ms. With the computing thread at Java priority 4 (nice 1) they had 1.13x and 0.97x, the computing
 * request still 1.6x stock's rate, and beside four computing requests (three in lanes) those kept 0.98x and 0.99x of
 * stock's throughput; at priority 3 (nice 2) that fell to 0.88x-0.94x
 * ({@code bench/main/results/2026-11-26-night-intel/}).
 * <p>
 * HotSpot applies Java priorities on Linux only under {@code -XX:ThreadPriorityPolicy=1}; without it this class does
 * nothing but say so at start. An unprivileged process may lower a thread's priority but not raise it back (the JVM
 * ignores the kernel's refusal): such a thread then ends once its request is done
 * ({@link LoopThread#retireAfterWork}), instead of leading a loop at the lower priority later.
 */
public final class ComputePriority {

    private static final Log log = LogFactory.getLog(ComputePriority.class);

    /** The attribute's default: one step below normal. */
    public static final int DEFAULT = Thread.NORM_PRIORITY - 1;

    private final int priority;
    private final boolean applied;
    private final LongAdder lowered = new LongAdder();
    private final LongAdder retired = new LongAdder();
    private final AtomicBoolean warnedOfRetirement = new AtomicBoolean();

    /**
     * @param priority a Java priority from {@link Thread#MIN_PRIORITY} to {@link Thread#NORM_PRIORITY} (normal: off)
     */
    public ComputePriority(int priority) {
        this.priority = priority;
        this.applied = priority < Thread.NORM_PRIORITY && jvmAppliesPriorities();
    }

    /** @return whether HotSpot maps Java priorities to the kernel's ({@code -XX:ThreadPriorityPolicy=1}) */
    public static boolean jvmAppliesPriorities() {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return vm != null && "1".equals(vm.getVMOption("ThreadPriorityPolicy").getValue()) &&
                    "true".equals(vm.getVMOption("UseThreadPriorities").getValue());
        } catch (RuntimeException | LinkageError e) {
            return false; // not HotSpot, or a runtime without the jdk.management module
        }
    }

    /** @return whether computing requests run at the lower priority in this JVM */
    public boolean isApplied() {
        return applied;
    }

    public int priority() {
        return priority;
    }

    /**
     * Lowers the calling thread's priority for the computing request it is about to run.
     *
     * @return whether it did, so that the caller calls {@link #restore} after the request
     */
    public boolean lower() {
        if (!applied) {
            return false;
        }
        Thread.currentThread().setPriority(priority);
        lowered.increment();
        return true;
    }

    /** Back to normal after the request; a thread the kernel did not let back ends after its work. */
    public void restore() {
        Thread.currentThread().setPriority(Thread.NORM_PRIORITY);
        if (KernelThreadState.currentNice() > 0) {
            LoopThread me = LoopThread.current();
            if (me != null) {
                me.retireAfterWork();
            }
            retired.increment();
            if (warnedOfRetirement.compareAndSet(false, true)) {
                log.warn("computingRequestPriority=\"" + priority + "\": this process may lower a thread's " +
                        "priority but not raise it back (not root, RLIMIT_NICE 0), so each thread that ran a " +
                        "computing request ends after it and the pool starts a new one. Set it to " +
                        Thread.NORM_PRIORITY + " to turn this off, or raise the process's nice limit");
            }
        }
    }

    /** @return requests that ran at the lower priority */
    public long getLowered() {
        return lowered.sum();
    }

    /** @return threads that could not get back to normal priority and ended after their request */
    public long getRetired() {
        return retired.sum();
    }

    @Override
    public String toString() {
        return priority >= Thread.NORM_PRIORITY ? "off" : priority + (applied ? "" : " (inactive: the JVM applies " +
                "thread priorities only under -XX:ThreadPriorityPolicy=1)");
    }
}
