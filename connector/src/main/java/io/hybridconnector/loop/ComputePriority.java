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
 * Lower still, by as many steps as {@link ComputeShare} says (or one higher, never above normal, while computing
 * requests wait for lanes or get far less than stock gives them): a fixed step fixes how a core is split, and stock's
 * split moves with what the short requests cost. Alone beside a loop a computing request took 1.7x-1.8x stock's
 * throughput at nice 1 while the light requests had 0.875x-1.08x stock's (an AMD guest, 2026-11-26 late, one core,
 * beside one request computing 200 ms); beside several, their own throughput is the tight one (beside four computing
 * 20 ms they had 1.07x-1.17x at nice 1 and 0.99x-1.07x at nice 2 there, 0.88x-0.94x at nice 2 on the Intel guest)
 * ({@code bench/main/results/2026-11-26-late-amd/}).
 * <p>
 * How: where HotSpot maps Java priorities to nice values ({@code -XX:ThreadPriorityPolicy=1}), by
 * {@code Thread.setPriority}; elsewhere on Linux by {@code setpriority(2)} itself ({@link NativeNice}), since without
 * that option HotSpot's {@code setPriority} changes nothing. Where neither works (not Linux, no native library) this
 * class does nothing but say so at start. An unprivileged process may lower a thread's priority but not raise it back
 * (RLIMIT_NICE 0; the JVM ignores the kernel's refusal, {@code setpriority} reports it): such a thread then ends once
 * its request is done ({@link LoopThread#retireAfterWork}), instead of leading a loop at the lower priority later.
 */
public final class ComputePriority {

    private static final Log log = LogFactory.getLog(ComputePriority.class);

    /** The attribute's default: one step below normal. */
    public static final int DEFAULT = Thread.NORM_PRIORITY - 1;

    private static final int MAX_NICE = 19;

    /** How this JVM changes a thread's nice value. */
    private enum Mechanism {
        /** {@code computingRequestPriority} is normal: nothing to change. */
        OFF,
        /** {@code Thread.setPriority}, which HotSpot applies under {@code -XX:ThreadPriorityPolicy=1}. */
        JVM,
        /** {@code setpriority(2)} through {@link NativeNice}. */
        SETPRIORITY,
        /** Neither works here; {@link #toString} says why. */
        INACTIVE
    }

    private final int priority;
    /** HotSpot's Linux mapping: one Java priority step below normal is nice 1. */
    private final int nice;
    /** The nice value the process's threads run at (0, unless it was started under {@code nice}). */
    private final int normalNice;
    private final Mechanism mechanism;
    private final String inactiveBecause;
    private final LongAdder lowered = new LongAdder();
    private final LongAdder retired = new LongAdder();
    private final AtomicBoolean warnedOfRetirement = new AtomicBoolean();

    /**
     * @param priority a Java priority from {@link Thread#MIN_PRIORITY} to {@link Thread#NORM_PRIORITY} (normal: off)
     */
    public ComputePriority(int priority) {
        this.priority = priority;
        this.nice = Thread.NORM_PRIORITY - priority;
        this.normalNice = KernelThreadState.currentNice();
        String why = null;
        if (priority >= Thread.NORM_PRIORITY) {
            mechanism = Mechanism.OFF;
        } else if (jvmAppliesPriorities()) {
            mechanism = Mechanism.JVM;
        } else {
            why = whyNativeUnavailable(normalNice);
            mechanism = why == null ? Mechanism.SETPRIORITY : Mechanism.INACTIVE;
        }
        this.inactiveBecause = why;
    }

    /** @return {@code null} if {@link NativeNice} works in this process, else why not */
    private static String whyNativeUnavailable(int current) {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return "a thread has a nice value of its own only on Linux";
        }
        try {
            // Raising one's own nice value to what it is always succeeds: this loads the library and tries it.
            return NativeNice.setCurrent(current) ? null : "setpriority(2) failed";
        } catch (LinkageError | RuntimeException e) {
            return "no native access (" + e + "); -XX:ThreadPriorityPolicy=1 lets the JVM apply it";
        }
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
        return mechanism == Mechanism.JVM || mechanism == Mechanism.SETPRIORITY;
    }

    /**
     * Lowers the calling thread's priority for the computing request it is about to run.
     *
     * @param step how many steps below the configured priority ({@link ComputeShare#steps}); negative: above it
     * @return whether it did, so that the caller calls {@link #restore} after the request; {@code false} also where
     *         the step is normal priority or above, which the request then runs at
     */
    public boolean lower(int step) {
        if (nice + step <= 0) {
            return false;
        }
        switch (mechanism) {
            case JVM:
                Thread.currentThread().setPriority(javaPriorityAt(step));
                break;
            case SETPRIORITY:
                if (!NativeNice.setCurrent(Math.min(MAX_NICE, normalNice + nice + step))) {
                    return false;
                }
                break;
            default:
                return false;
        }
        lowered.increment();
        return true;
    }

    /** Back to normal after the request; a thread the kernel did not let back ends after its work. */
    public void restore() {
        if (!backToNormal()) {
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

    private boolean backToNormal() {
        if (mechanism == Mechanism.SETPRIORITY) {
            return NativeNice.setCurrent(normalNice);
        }
        // The JVM ignores the kernel's refusal: ask the kernel.
        Thread.currentThread().setPriority(Thread.NORM_PRIORITY);
        return KernelThreadState.currentNice() <= 0;
    }

    /** @return requests that ran at the lower priority */
    public long getLowered() {
        return lowered.sum();
    }

    /** @return threads that could not get back to normal priority and ended after their request */
    public long getRetired() {
        return retired.sum();
    }

    /** @return the Java priority {@code step} steps below the configured one; Java has none below 1 (nice 4) */
    private int javaPriorityAt(int step) {
        return Math.max(Thread.MIN_PRIORITY, priority - step);
    }

    private String nices() {
        int lowest = mechanism == Mechanism.JVM ? Thread.NORM_PRIORITY - javaPriorityAt(ComputeShare.MAX_STEPS)
                : Math.min(MAX_NICE, nice + ComputeShare.MAX_STEPS);
        return "nice " + nice + " to " + lowest + " as the CPU they get per loop run asks, nice " +
                Math.max(0, nice + ComputeShare.STEP_ABOVE) + " when they need more";
    }

    @Override
    public String toString() {
        switch (mechanism) {
            case OFF:
                return "off";
            case JVM:
                return priority + " (" + nices() + ", by the JVM)";
            case SETPRIORITY:
                return priority + " (" + nices() + ", by setpriority)";
            default:
                return priority + " (inactive: " + inactiveBecause + ")";
        }
    }
}
