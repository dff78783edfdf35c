package io.hybridconnector.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.hybridconnector.classify.ThreadTimes;
import io.hybridconnector.loop.HandOffPolicy.Activity;
import io.hybridconnector.loop.HandOffPolicy.Decision;
import io.hybridconnector.loop.HandOffPolicy.Moment;
import io.hybridconnector.write.OutputHold;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * Looks at the runs that hold loops and moves the loop away from those that wait or compute too long, as its
 * {@link HandOffPolicy} decides. A servlet that sleeps, waits for a lock or a database, or computes a report cannot
 * say so; the detector sees how long its run has held the loop and what its thread is doing.
 * <p>
 * The bound: a run that computes holds its loop for at most its share of the budget ({@code blockedHandOffMillis}
 * divided among the run and the connections ready behind it, {@link HandOffPolicy#limitNanos}, 1 ms at least) plus
 * the detector's lateness, because the detector looks again exactly when the oldest run it saw reaches its limit,
 * never later than one budget after its previous look; that while a run of the loop held it for 1 ms or more in the
 * last {@link #WATCHFUL_NANOS} (or was moved). Otherwise every run was short, and the detector looks at a run when it
 * reaches the budget: the first long run after a quiet second holds its loop for at most the budget, the ones after
 * it for their share. A run that waits in Java moves at the first look; one that waits in the kernel once it reached
 * the budget. Costs: while requests run back to back, one wake-up of this thread per budget (200 a second at 5 ms,
 * two context switches each on some core); while the loops only select, the detector parks after
 * {@link #QUIET_LOOKS_BEFORE_PARKING} looks and the next run wakes it ({@link #activity}, one volatile read per run
 * otherwise); one per share, down to one per millisecond with a deep backlog, only while long runs come. Looking at
 * every share whatever the runs had the detector wake 1,000 times a second behind back-to-back 10 KB requests at
 * c=100, 0.06 context switches per request, as many again on the leader it preempted, to find the run long over.
 * <p>
 * It also writes the WARN an operator needs when a loop is held anyway (nobody else waited, so the policy let the run
 * go on, or hand-offs are off) or has no thread because all {@code threads} are busy: the request, its thread's
 * stack, at most one line per {@link #WARN_INTERVAL_NANOS}.
 * <p>
 * And it sends response bytes a request left gathered and then paused on ({@link #watch}, {@link OutputHold}): a
 * servlet that wrote 8 KB and sleeps cannot send them itself. It looks at a hold when it is due, or at its next look
 * if the hold began while it slept: within {@link OutputHold#HOLD_NANOS} to one budget of the pause. Thread models
 * that do not hand loops off start one with no loops, for this alone.
 * <p>
 * Runs on its own daemon thread; the per-loop state below is its own.
 */
public final class StallDetector implements Runnable {

    private static final Log log = LogFactory.getLog(StallDetector.class);

    /** Looks that found no run before the detector parks until a run begins. */
    private static final int QUIET_LOOKS_BEFORE_PARKING = 100;
    /** The shortest sleep between looks: a run younger than the budget by less than this is looked at now. */
    private static final long MIN_SLEEP_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long after a long run of a loop the detector looks at each of its runs when its share is up. */
    static final long WATCHFUL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int WARN_STACK_FRAMES = 16;

    private final HandOffPolicy policy;
    private final long budgetNanos;
    /** A loop held or leaderless for longer than this is logged; {@code Long.MAX_VALUE} when off. */
    private final long warnNanos;
    private volatile EventLoop[] loops = new EventLoop[0];
    /** Switched on and off at each look while requests compute off the loops; {@code null}: never. */
    private volatile TimeSlicing timeSlicing;
    /** Response bytes gathered by requests that may pause; any thread adds ({@link #watch}), the detector takes. */
    private final ConcurrentLinkedQueue<OutputHold> holds = new ConcurrentLinkedQueue<>();
    /** Detector only: the holds not yet due at this look, listed again after it. */
    private final List<OutputHold> notDue = new ArrayList<>();
    /**
     * Per loop: the run the detector saw first at its last look, when, and its leader's CPU time then; so that at the
     * budget the detector can tell a run that computed from one that waited for a CPU ({@link Activity#STARVED}).
     */
    private long[] firstLookSeq = new long[0];
    private long[] firstLookNanos = new long[0];
    private long[] firstLookCpuNanos = new long[0];
    /** Per loop: the run word already reported in a WARN, so that each run is reported once. Detector only. */
    private long[] warnedSeq = new long[0];
    private long[] warnedLeaderlessSince = new long[0];
    private long lastWarnNanos = System.nanoTime() - WARN_INTERVAL_NANOS;
    private int warningsHeldBack;
    /** Passes over the loops so far: the detector's wake-ups. Written by the detector only. */
    private volatile long looks;
    /**
     * When the detector's timed sleep should end; a look that comes later than this by more than a budget was stopped
     * (a collection's pause, a safepoint) or starved of a CPU, and every run it looks at may have been as well.
     * Detector only; {@link Long#MAX_VALUE} after an untimed park.
     */
    private long wakeDueNanos = Long.MAX_VALUE;
    private volatile boolean sleeping;
    private volatile boolean stopped;
    private volatile Thread thread;

    /**
     * @param policy         decides what a run that holds its loop does
     * @param loopWarnMillis a loop held by one run, or without a thread, for longer than this is logged; -1: never
     */
    public StallDetector(HandOffPolicy policy, long loopWarnMillis) {
        this.policy = policy;
        this.budgetNanos = Math.max(policy.budgetNanos(), MIN_SLEEP_NANOS);
        this.warnNanos = loopWarnMillis < 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(loopWarnMillis);
    }

    public HandOffPolicy policy() {
        return policy;
    }

    /** Starts looking at {@code loops}, switching {@code timeSlicing} ({@code null}: none) as requests compute off them. */
    public void start(EventLoop[] loops, TimeSlicing timeSlicing, String name) {
        this.timeSlicing = timeSlicing;
        start(loops, name);
    }

    public void start(EventLoop[] loops, String name) {
        this.firstLookSeq = new long[loops.length];
        this.firstLookNanos = new long[loops.length];
        this.firstLookCpuNanos = new long[loops.length];
        this.warnedSeq = new long[loops.length];
        this.warnedLeaderlessSince = new long[loops.length];
        this.loops = loops;
        Thread t = ConnectorThreads.newThread(this, name, true);
        thread = t;
        t.start();
    }

    public void stop() {
        stopped = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** @return the detector's passes over the loops so far, one per wake-up */
    long looks() {
        return looks;
    }

    /** A leader started a run. Costs one volatile read unless the detector is parked. */
    void activity() {
        if (sleeping) {
            sleeping = false;
            LockSupport.unpark(thread);
        }
    }

    /**
     * A request's thread left response bytes gathered ({@link OutputHold#hold}): send them if it does not come back
     * for them. Any thread; costs a queue node, and an unpark only when the detector is parked (nothing ran for
     * {@link #QUIET_LOOKS_BEFORE_PARKING} looks).
     */
    public void watch(OutputHold hold) {
        holds.offer(hold);
        activity();
    }

    @Override
    public void run() {
        int quietLooks = 0;
        while (!stopped) {
            looks++;
            long now = System.nanoTime();
            boolean late = wakeDueNanos != Long.MAX_VALUE && now - wakeDueNanos > budgetNanos;
            long sleep = budgetNanos;
            boolean anyRun = false;
            EventLoop[] all = loops;
            for (int i = 0; i < all.length; i++) {
                long again = look(all[i], i, now, late);
                if (again >= 0) {
                    anyRun = true;
                    sleep = Math.min(sleep, again);
                }
            }
            TimeSlicing slicing = timeSlicing;
            if (slicing != null && slicing.look(now, all)) {
                anyRun = true; // threads work off the loops: keep looking every budget
            }
            long due = lookAtHolds(now);
            if (due >= 0) {
                anyRun = true;
                sleep = Math.min(sleep, due);
            }
            if (anyRun) {
                quietLooks = 0;
            } else if (++quietLooks >= QUIET_LOOKS_BEFORE_PARKING) {
                wakeDueNanos = Long.MAX_VALUE;
                parkUntilActivity();
                quietLooks = 0;
                continue;
            }
            long nap = Math.max(sleep, MIN_SLEEP_NANOS);
            wakeDueNanos = System.nanoTime() + nap;
            LockSupport.parkNanos(this, nap);
        }
    }

    /**
     * Sends the held bytes that are due; the others stay listed.
     *
     * @return nanoseconds until the next hold is due, or -1 if none is listed
     */
    private long lookAtHolds(long now) {
        long next = -1;
        for (OutputHold hold; (hold = holds.poll()) != null; ) {
            long due = hold.lookAt(now);
            if (due >= 0) {
                notDue.add(hold);
                next = next < 0 ? due : Math.min(next, due);
            }
        }
        if (!notDue.isEmpty()) {
            holds.addAll(notDue);
            notDue.clear();
        }
        return next;
    }

    private void parkUntilActivity() {
        sleeping = true;
        // Re-check after publishing 'sleeping': a leader that began a run before it saw the flag is seen here (its
        // runSeq write precedes its read of the flag), and so is a hold listed before it saw the flag.
        if (!anyInRun() && holds.isEmpty()) {
            while (sleeping && !stopped) {
                LockSupport.park(this);
            }
        }
        sleeping = false;
    }

    /**
     * Looks at one loop's run, if any, and carries out the policy's decision.
     *
     * @return nanoseconds until this loop's run should be looked at again, or -1 if no run holds the loop now
     */
    private long look(EventLoop loop, int index, long now, boolean late) {
        warnIfLeaderless(loop, index, now);
        long seq = loop.runSeq();
        if ((seq & 1) == 0 || (seq & EventLoop.HANDED_OFF) != 0) {
            return -1;
        }
        long start = loop.runStartNanos();
        long limit = policy.limitNanos(loop.waitingAtRunStart());
        LoopThread leader = loop.leader();
        if (leader == null || loop.runSeq() != seq) {
            return 0; // the run changed while we read it: look again soon
        }
        long age = Math.max(0, now - start);
        if (firstLookSeq[index] != seq || late) {
            // A late look watches the run afresh: what it did while the detector was stopped is not known.
            firstLookSeq[index] = seq;
            firstLookNanos[index] = now;
            firstLookCpuNanos[index] = ThreadTimes.cpuNanosOf(leader);
        }
        Activity activity = activityOf(leader, index, age, limit, now, late);
        // Read racily, as the run's other fields: a stale answer delays a move by one look.
        LoopChannel channel = loop.currentChannel();
        boolean ownWriteWaits = channel != null && channel.writeWaitsForLoop();
        Decision decision = policy.decide(Moment.DETECTOR_TICK, age, limit, activity, loop.othersMayWait(),
                ownWriteWaits);
        if (decision != Decision.STAY && loop.handOff(seq, decision)) {
            loop.movedLongRun(now);
            if (decision == Decision.BLOCKED && channel != null) {
                channel.blockedOnLoop();
            }
            return -1;
        }
        if (age >= warnNanos) {
            warnHeld(loop, index, seq, leader, age);
        }
        if (activity == Activity.JUST_SEEN) {
            return limit / 2;
        }
        if (age >= limit) {
            return budgetNanos;
        }
        // While no run held this loop for the least limit lately, a look at each run's share would find it ended
        // (back to back 10 KB requests, 60 us each, had the detector wake 1,000 times a second): look at its budget.
        return now - loop.lastLongRunNanos() < WATCHFUL_NANOS ? limit - age : budgetNanos - age;
    }

    private Activity activityOf(LoopThread leader, int index, long age, long limit, long now, boolean late) {
        Thread.State state = leader.getState();
        if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED) {
            return Activity.WAITING_IN_JAVA;
        }
        if (late && age >= limit) {
            // The detector was stopped for over a budget: by a collection's pause or a safepoint, which stopped the
            // run too (a run as old as the pause, with a fraction of a millisecond of CPU, looked starved and was
            // moved, one or two moves per young collection behind 100 KB responses), or by a CPU it waited for. A
            // leader seen in the kernel now may be still waking from that pause. Look again in half a share.
            return Activity.JUST_SEEN;
        }
        if (age < limit) {
            return Activity.RUNNING; // not old enough to move: spare the system calls below
        }
        if (KernelThreadState.sleepingInKernel(leader.tid()) == 1) {
            return Activity.WAITING_IN_KERNEL;
        }
        long watched = now - firstLookNanos[index];
        if (watched < limit / 2) {
            return Activity.JUST_SEEN;
        }
        long cpu = ThreadTimes.cpuNanosOf(leader);
        boolean starved = cpu >= 0 && firstLookCpuNanos[index] >= 0 && (cpu - firstLookCpuNanos[index]) * 2 < watched;
        return starved ? Activity.STARVED : Activity.RUNNING;
    }

    private boolean anyInRun() {
        for (EventLoop loop : loops) {
            if (loop.isInRun()) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ the operator's WARN

    private void warnHeld(EventLoop loop, int index, long seq, LoopThread leader, long age) {
        if (warnedSeq[index] == seq || !mayWarn()) {
            return;
        }
        warnedSeq[index] = seq;
        LoopChannel channel = loop.currentChannel();
        String request = channel == null ? "a deferred task (an HTTP/2 stream)" : channel.describeRun();
        log.warn("Event loop " + loop.getId() + " has been held for " + TimeUnit.NANOSECONDS.toMillis(age) +
                " ms by " + request + " on thread [" + leader.getName() + "]; it keeps the loop while no other " +
                "connection of the loop waits" + heldBack() + stackOf(leader));
    }

    private void warnIfLeaderless(EventLoop loop, int index, long now) {
        long since = loop.leaderlessSinceNanos();
        if (since == 0 || now - since < warnNanos || warnedLeaderlessSince[index] == since || !mayWarn()) {
            return;
        }
        warnedLeaderlessSince[index] = since;
        log.warn("Event loop " + loop.getId() + " with " + loop.getConnectionCount() + " connections has waited " +
                TimeUnit.NANOSECONDS.toMillis(now - since) + " ms for a thread: all threads are in requests that " +
                "block or compute; raise 'threads' or shorten those requests" + heldBack());
    }

    private boolean mayWarn() {
        long now = System.nanoTime();
        if (now - lastWarnNanos < WARN_INTERVAL_NANOS) {
            warningsHeldBack++;
            return false;
        }
        lastWarnNanos = now;
        return true;
    }

    private String heldBack() {
        int n = warningsHeldBack;
        warningsHeldBack = 0;
        return n == 0 ? "" : " (" + n + " more such warnings in the last " +
                TimeUnit.NANOSECONDS.toSeconds(WARN_INTERVAL_NANOS) + " s were not logged)";
    }

    private static String stackOf(Thread t) {
        StringBuilder sb = new StringBuilder();
        StackTraceElement[] stack = t.getStackTrace();
        for (int i = 0; i < Math.min(stack.length, WARN_STACK_FRAMES); i++) {
            sb.append("\n\tat ").append(stack[i]);
        }
        if (stack.length > WARN_STACK_FRAMES) {
            sb.append("\n\t... ").append(stack.length - WARN_STACK_FRAMES).append(" more");
        }
        return sb.toString();
    }
}
