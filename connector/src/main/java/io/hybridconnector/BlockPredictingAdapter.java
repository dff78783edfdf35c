package io.hybridconnector;

import java.util.function.LongSupplier;

import io.hybridconnector.classify.RequestClassifier;
import io.hybridconnector.classify.RequestClassifier.RequestClass;
import io.hybridconnector.classify.ThreadTimes;
import io.hybridconnector.loop.EventLoop;
import io.hybridconnector.loop.HandOffPolicy;
import io.hybridconnector.loop.HandOffPolicy.Decision;
import io.hybridconnector.loop.LoopThread;

import org.apache.coyote.Adapter;
import org.apache.coyote.Request;
import org.apache.coyote.Response;
import org.apache.tomcat.util.net.SocketEvent;

/**
 * Catalina's adapter as a loop leader calls it. A request that holds its loop - it blocks, or computes past the
 * budget - costs the loop's other connections the time the stall detector needs to notice (up to one budget); a
 * request class that held loops before therefore gives its loop to another thread before it runs, at the price of one
 * hand-off. Which classes hold loops is learnt from the requests that ran on the loop (those the detector moved, for
 * any reason, and sampled ones that waited most of their time), and re-tested now and then (see
 * {@link RequestClass}). A request of a class that computes, rather than waits, is marked as computing while it runs
 * off the loops, wherever it runs (a thread that left its loop, or a pool thread while the loops time-slice): the
 * stall detector then keeps every ready connection on a thread of its own ({@code TimeSlicing}), as stock NIO does,
 * for as long as such requests run.
 * <p>
 * Until some request has held a loop, the only cost is one volatile read per request.
 */
final class BlockPredictingAdapter implements Adapter {

    /** One inline request in this many is timed, whatever its class, to find classes that block briefly. */
    private static final int SAMPLE_EVERY = 256;
    /** One predicted run in this many is timed against the thread's running time (a read of the kernel's schedstat). */
    private static final int PREDICTED_SAMPLE_EVERY = 8;
    /** Shorter waits cost the loop less than a hand-off would. */
    private static final long MIN_BLOCK_NANOS = 500_000;

    private final Adapter delegate;
    private final RequestClassifier classifier;
    /** The hand-off budget ({@code blockedHandOffMillis}) in nanoseconds, read where no loop gives it. */
    private final LongSupplier budgetNanos;

    BlockPredictingAdapter(Adapter delegate, RequestClassifier classifier, LongSupplier budgetNanos) {
        this.delegate = delegate;
        this.classifier = classifier;
        this.budgetNanos = budgetNanos;
    }

    @Override
    public void service(Request req, Response res) throws Exception {
        EventLoop loop = LoopThread.currentLoop();
        if (loop == null) {
            // A pool thread (the loops time-slice), a connection's own thread, or a thread that already gave its loop
            // away: a request of a computing class is marked, so that the loops go on time-slicing while it runs.
            serviceOffLoop(req, res);
            return;
        }
        RequestClass known = null;
        if (classifier.anyBlocking()) {
            known = classifier.lookup(req);
            if (known != null && known.predictBlocking()) {
                // Read before the hand-off: from then on the loop's run fields are the next leader's.
                long budget = loop.handOffBudgetNanos();
                long limit = Math.min(budget / 2, loop.runLimitNanos());
                loop.handOffBeforeRunning();
                LoopThread.computingRequest(known.computedNanos() > 0);
                try {
                    servicePredicted(known, budget, limit, req, res);
                } finally {
                    LoopThread.computingRequest(false);
                }
                return;
            }
        }
        // Timed: inline runs of a suspect class, and one in SAMPLE_EVERY of all others, because a block shorter than
        // the detector's tick leaves no other trace.
        boolean timed = (known != null && known.isSuspect()) || LoopThread.sampleThisRun(SAMPLE_EVERY);
        long wall0 = timed ? System.nanoTime() : 0;
        long running0 = timed ? ThreadTimes.notBlockedNanos() : 0;
        long gc0 = timed ? ThreadTimes.gcMillis() : 0;
        try {
            delegate.service(req, res);
        } finally {
            boolean moved = !loop.inLoop();
            if (!moved && timed && ThreadTimes.gcMillis() != gc0) {
                return; // timed across a garbage collection: it waited for the collector, learn nothing
            }
            long computedAfterMove = 0;
            if (moved && LoopThread.lastMoveOfCurrent() == Decision.STARVED) {
                // It held the loop while waiting for a CPU that others had: that says nothing about the request,
                // unless it then went on computing for half a budget or more (a long request beside other long ones).
                computedAfterMove = LoopThread.cpuSinceStarvedMove();
                if (computedAfterMove < loop.handOffBudgetNanos() / 2) {
                    return;
                }
            }
            // Moved by the detector: it waited or computed past the budget; either way the loop was held. Not moved
            // but timed, and waited most of its time: a wait shorter than the budget, which is weaker evidence.
            boolean waited = !moved && timed &&
                    waitedMostOfTheTime(System.nanoTime() - wall0, ThreadTimes.notBlockedNanos() - running0);
            RequestClass c = known;
            if (c == null && (moved || waited)) {
                c = classifier.lookup(req);
            }
            if (c != null) {
                if (waited) {
                    c.waitedOnLoop();
                } else if (!moved || LoopThread.lastMoveOfCurrent() != Decision.BLOCKED) {
                    c.ranOnLoop(moved); // moved as BLOCKED: the stall detector learnt it then (blockedOnLoop)
                }
                if (moved) {
                    // Computing: at least the budget, measured exactly by its predicted runs (no clock read on the
                    // fast path). Moved for waiting: 0.
                    Decision why = LoopThread.lastMoveOfCurrent();
                    c.computed(why == Decision.COMPUTED ? loop.handOffBudgetNanos() : computedAfterMove);
                }
            }
        }
    }

    /**
     * Runs a request whose class held loops, after its loop went to another thread, and tells the class whether it
     * still would have. It would if it used {@code longCpuNanos} of CPU (half the budget, or less: the limit the
     * detector would have moved it at, with the connections that were ready behind it; measured: 2 ms requests beside
     * 50 ready connections were moved at 1 ms inline, then judged short when predicted, and drifted back to the loop
     * over and over), or if it took half the budget of wall time and
     * spent most of that waiting for something (not for a CPU): on an overloaded machine a 1 ms request can take 10 ms
     * of wall time in the run queue, and learning it as long would add a hand-off to every such request exactly when
     * the CPUs have no time to spare. A shorter run counts as long only if it waited most of its time, which one run
     * in {@link #PREDICTED_SAMPLE_EVERY} measures. Without that measurement a class whose requests wait briefly (a 1 ms
     * database read) would drift back to the loop after a few short runs, block it again, be learnt again, and so on.
     * The loop already moved, so the clock reads here cost little beside that hand-off.
     */
    private void servicePredicted(RequestClass known, long budgetNanos, long longCpuNanos, Request req, Response res)
            throws Exception {
        // A class predicted by its path's (a query seen for the first time) is always measured: its own first run
        // decides from then on whether it hands off, so a light query of a heavy path does not go on handing off.
        servicePredicted(known, budgetNanos, longCpuNanos, !known.hasRun() ||
                LoopThread.sampleThisRun(PREDICTED_SAMPLE_EVERY), req, res);
    }

    /** @param sampled whether a short run is judged too (it waited, or not), not only one past half the budget */
    private void servicePredicted(RequestClass known, long budgetNanos, long longCpuNanos, boolean sampled,
            Request req, Response res) throws Exception {
        long gc0 = ThreadTimes.gcMillis();
        long cpu0 = ThreadTimes.cpuNanos();
        long notBlocked0 = ThreadTimes.notBlockedNanos();
        long wall0 = System.nanoTime();
        try {
            delegate.service(req, res);
        } finally {
            long wall = System.nanoTime() - wall0;
            if (ThreadTimes.gcMillis() != gc0) {
                return; // it waited for the collector: learn nothing
            }
            long cpu = ThreadTimes.cpuNanos() - cpu0;
            if (cpu >= longCpuNanos) {
                known.ranOffLoop(true);
                known.computed(cpu);
            } else if (wall >= budgetNanos / 2 || sampled) {
                boolean waited = waitedMostOfTheTime(wall, ThreadTimes.notBlockedNanos() - notBlocked0);
                known.ranOffLoop(waited);
                if (waited) {
                    known.computed(0);
                }
            }
        }
    }

    /**
     * A request away from any loop's leader. If the classifier knows its class computes, its thread is marked as
     * computing while it runs; otherwise it runs as it is. One volatile read while no class held a loop.
     * <p>
     * On the operator's executor (no connector thread), a request of a class known to block is timed and judged as a
     * predicted run is, every run: the scheduler sends such requests there before they reach a loop, so no other run
     * would ever show that the class became short, and two blocks in a row (a fresh application's first requests
     * waiting for one class initialisation) would keep its path off the loops for good. It counts as long if it
     * computed the least limit the detector ever moves a run at, or waited most of half the budget or more.
     */
    private void serviceOffLoop(Request req, Response res) throws Exception {
        RequestClass known = classifier.anyBlocking() ? classifier.lookup(req) : null;
        boolean connectorThread = LoopThread.current() != null;
        if (!connectorThread && known != null && known.predictBlocking()) {
            servicePredicted(known, budgetNanos.getAsLong(), HandOffPolicy.MIN_LIMIT_NANOS, true, req, res);
            return;
        }
        if (!connectorThread || known == null || known.computedNanos() <= 0) {
            delegate.service(req, res);
            return;
        }
        LoopThread.computingRequest(true);
        try {
            delegate.service(req, res);
        } finally {
            LoopThread.computingRequest(false);
        }
    }

    /** Longer than {@link #MIN_BLOCK_NANOS}, and running (or ready to run) less than half of it: it waited. */
    private static boolean waitedMostOfTheTime(long wallNanos, long notBlockedNanos) {
        return wallNanos > MIN_BLOCK_NANOS && notBlockedNanos * 2 < wallNanos;
    }

    @Override
    public boolean prepare(Request req, Response res) throws Exception {
        return delegate.prepare(req, res);
    }

    @Override
    public boolean asyncDispatch(Request req, Response res, SocketEvent status) throws Exception {
        return delegate.asyncDispatch(req, res, status);
    }

    @Override
    public void log(Request req, Response res, long time) {
        delegate.log(req, res, time);
    }

    @Override
    public void checkRecycled(Request req, Response res) {
        delegate.checkRecycled(req, res);
    }

    @Override
    public String getDomain() {
        return delegate.getDomain();
    }
}
