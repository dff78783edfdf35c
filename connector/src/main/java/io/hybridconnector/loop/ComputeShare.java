package io.hybridconnector.loop;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many steps below {@code computingRequestPriority} the next computing requests run: steered so that, per run the
 * loops serve, each computing request gets about the CPU that stock NIO's time slicing gives it.
 * <p>
 * Why steer: a fixed priority fixes how a core is split between a loop and the computing requests beside it, and stock
 * NIO's split is not fixed. Stock runs each short request on a woken worker, so the more CPU the short requests need,
 * the more runnable threads they have and the larger their share. Measured on one core beside four connections
 * computing 20 ms (Intel and AMD guests, 2026-11-25 to 26, 32 runs): per short request served, stock gave each
 * computing request 8.6 to 11.2 microseconds of CPU; on 2026-11-27, 9.8 in a round where a short request cost it 24
 * microseconds and 11.0 in one where it cost 44 (the AMD guest's host slowed it by about 1.7x for minutes at a time).
 * With fixed steps (every other computing request at nice 2, the rest at nice 1) ours gave 8.8 and then 17.8: when
 * the short requests got dearer the computing ones kept their share, and the short ones' throughput halved where
 * stock's fell by a quarter (same rounds: light 18,135 then 8,854 req/s, stock 15,818 then 11,349).
 * <p>
 * How: computing requests report the CPU time they used ({@link #finished}); the stall detector {@link #look looks}
 * at every look, and once a period holds enough of them it divides their CPU by the runs the loops began meanwhile
 * and by the computing requests there were on average (running, or waiting for a {@link ComputeLane}, as stock would
 * run them all). Above what stock gives that many ({@link #targetNanos}) the next requests go as many steps lower as
 * the excess asks; below three quarters of it, one step back. A step is a nice value (a fifth less weight for the
 * kernel's scheduler), which moved the CPU per run by a seventh at least (nice 2 to 3 beside four computing 20 ms: 8.5
 * to 7.3 us; nice 1 to 2 beside one computing 200 ms, a fifth), less than the band between the two thresholds; a period
 * (a second at least) takes as many sevenths as the excess holds, so that it does not overshoot. With a
 * band of three fifths to one, noise in one period (a scenario's start) took the steps down one more, where nothing
 * brought them back: 6.9 to 8.5 us, the computing requests at 0.97x-0.99x stock's throughput. Per CPU, because with
 * more CPUs each computing request shares its CPU with fewer of the loops' runs: stock gave each 14.5 to 15
 * microseconds per run on two cores. Nothing here runs on the fast path: two CPU clock reads and two counter updates
 * per computing request, and a read of each loop's run word at each of the detector's looks.
 * <p>
 * How much stock gives each depends on how many compute: one core, AMD guest, 2026-11-28, per computing request per
 * run, one computing 200 ms 4.8-5.4 us (0.28 of the core), two computing 100 ms 5.8-7.0, four computing 20 ms 8.5-9.1,
 * eight 9.1-9.5 ({@code bench/main/results/2026-11-28-lone-computing/}). {@code n / (n + 1)} of
 * {@link #TARGET_NANOS_PER_CPU} is within a tenth of each: 5, 6.7, 8 and 8.9. With 10 us for any count, one computing
 * request got 6.8 us per run at nice 1, inside that band, and 0.44 of the core where stock gave it 0.28; on a slower
 * Intel guest ours' light requests beside it then had 0.92x-0.94x stock's throughput. On more CPUs a lone request
 * shares its CPU with fewer short ones (two cores: stock gave one computing 200 ms 15.5 us per run, four computing 20
 * ms 12.5 each, 2026-11-27), so each CPU beyond the first counts as one more contender: 13.3 and 16.7 us there, which
 * ours met within the bounds.
 * <p>
 * The steps belong to the computing requests they were learnt beside: a period with none (or a detector parked that
 * long) brings the next ones back to the configured priority, rather than leaving a mix that is gone to steer the
 * next. Without that, the main job's scenarios each started where the previous one had left the steps, and took two
 * to four of their six seconds to find their own.
 * <p>
 * One step above the configured priority ({@link #STEP_ABOVE}, which is normal priority at the default) takes stronger
 * evidence than the steps below it: computing requests that wait for {@link ComputeLane lanes}, or a period that gave
 * them under half of stock's CPU per run. The lanes hold all of them to the share of the lanes' threads, below what
 * stock's time slicing gives all of them, and only a higher priority gives that back: three lanes at nice 1 beside a
 * loop get about 0.71 of a core, at nice 0 0.75, and stock gave four computing 20 ms 0.75 (an Intel guest, 2026-11-27
 * evening: ours' computing requests had 0.899x stock's throughput at nice 1, 0.95x at nice 0). On two cores, where
 * the load generator shares the CPUs and ours' light requests come 2.2x as fast as stock's, four computing 20 ms got
 * 3.6 us per run each (target 20) and 0.894x stock's throughput at nice 1. Under three quarters but over half is not
 * enough: beside one computing 200 ms on one core, 6 us per run, it already had 1.57x stock's throughput (stock gives
 * a lone computing request less per run than it gives each of four), and nice 0 took the light requests from 1.31x
 * stock's to 1.11x (same guest). The step above ends at the first period, or the first look with none computing,
 * that no longer shows that evidence.
 * <p>
 * Beyond the step above, the loops yield ({@link #loopsYield}, {@code Thread.yield()} once a round, as
 * {@link PreemptionPacer} has them do for waiting requests) while the computing requests still get under three
 * quarters of stock's CPU per run and more than one waits for a lane. Beside eight computing 20 ms on one core stock
 * gave them 0.85-0.86 of the core; three lanes at normal priority got 0.73-0.75 (0.86x-0.88x stock's throughput),
 * and six lanes no more (4.1-4.4 us per run against 3.3-3.6), because the loop, which sleeps and wakes, kept about a
 * quarter of the core. With the yields, 0.944x, the light requests 1.71x stock's throughput at a p99 of 7.5 ms
 * against stock's 9.4 (AMD guest, 2026-11-28, main job, 3 rounds,
 * {@code bench/main/results/2026-11-28-lone-computing/}). Four computing requests beside three lanes never ask for it:
 * one waits at most.
 * <p>
 * With no short requests to serve, the steps go down to {@link #MAX_STEPS}: harmless, since a lower priority takes
 * nothing from a thread that has the CPU to itself, and the first short requests that come then find the CPU.
 */
public final class ComputeShare {

    /**
     * Stock NIO's CPU per computing request per run served, on one core, as computing requests grow many: beside n
     * of them each gets {@code n / (n + 1)} of it (measured; see the class comment and {@link #targetNanos}).
     */
    static final long TARGET_NANOS_PER_CPU = TimeUnit.MICROSECONDS.toNanos(10);
    /**
     * The least a step moved the CPU per run, as a ratio: a seventh (four computing 20 ms, nice 2 to 3: 8.5 to 7.3
     * us; one computing 200 ms, nice 1 to 2: a fifth).
     */
    static final double STEP_EFFECT = 8 / 7.0;
    /** The most steps below the configured priority (nice 4 at the default priority). */
    static final int MAX_STEPS = 3;
    /**
     * The step one above the configured priority, on stronger evidence than a step below: computing requests wait for
     * lanes, or a period gave them under half of stock's CPU per run.
     */
    public static final int STEP_ABOVE = -1;
    /**
     * A period is at least this long: a period's CPU comes from the requests that finished in it, so a short one is
     * off by a request's CPU more or less (with 250 ms, four computing 20 ms moved the steps 38 times in about 40 s).
     */
    static final long MIN_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** and holds this many finished computing requests, */
    static final int MIN_FINISHED = 4;
    /** or is this long. */
    static final long MAX_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final int cpus;
    /** How many computing requests may run at once ({@link ComputeLane#size}); 0 or less: no bound. */
    private final int lanes;
    private final AtomicInteger computing = new AtomicInteger();
    private final LongAdder computedNanos = new LongAdder();
    private final LongAdder finished = new LongAdder();
    private final LongAdder stepsDown = new LongAdder();
    private final LongAdder stepsUp = new LongAdder();
    private volatile int steps;
    /** Whether the loops should yield once a round: the step above is not enough and more than one waits a lane. */
    private volatile boolean loopsYield;

    // The stall detector's: when its last look saw a computing request, and the period in progress.
    private long lastComputingSeen;
    private long periodStart;
    private long runsAtStart;
    private long computedAtStart;
    private long finishedAtStart;
    private long computingSum;
    private long looks;

    /**
     * @param cpus the CPUs this process may run on
     * @param lanes how many computing requests may run at once ({@link ComputeLane#size}); 0 or less: no bound
     */
    public ComputeShare(int cpus, int lanes) {
        this.cpus = Math.max(1, cpus);
        this.lanes = lanes;
    }

    /** A computing request starts: before it waits for a lane, so that waiting ones count as stock would run them. */
    public void started() {
        computing.incrementAndGet();
    }

    /** It ended, having used {@code cpuNanos} of CPU time since it got its lane. */
    public void finished(long cpuNanos) {
        computing.decrementAndGet();
        if (cpuNanos > 0) {
            computedNanos.add(cpuNanos);
        }
        finished.increment();
    }

    /**
     * @return how many steps below the configured priority the next computing request runs, from {@link #STEP_ABOVE}
     *         (one above it) to {@link #MAX_STEPS}
     */
    public int steps() {
        return steps;
    }

    /**
     * Stall detector: counts the computing requests now, and at the end of a period moves {@link #steps}.
     *
     * @param runs the runs all loops began so far
     */
    void look(long now, long runs) {
        int computingNow = computing.get();
        long done = finished.sum() - finishedAtStart;
        boolean mixGone = looks > 0 && now - lastComputingSeen >= MIN_PERIOD_NANOS;
        if (computingNow > 0 || looks == 0) {
            lastComputingSeen = now;
        }
        if (mixGone) {
            // None computed for a period (or the detector was parked): the requests the steps were learnt beside are
            // gone, and so is this period's meaning; the next ones start at the configured priority.
            if (steps != 0) {
                backToConfigured();
            }
            startPeriod(now, runs, computingNow);
            return;
        }
        if (looks == 0 || (computingNow == 0 && done == 0)) {
            startPeriod(now, runs, computingNow); // nothing computed: no information, and the next period starts now
            if (computingNow == 0 && steps < 0) {
                backToConfigured(); // the step above ends with the requests that needed it
            }
            return;
        }
        computingSum += computingNow;
        looks++;
        long elapsed = now - periodStart;
        if (elapsed < MIN_PERIOD_NANOS || (done < MIN_FINISHED && elapsed < MAX_PERIOD_NANOS)) {
            return;
        }
        if (done > 0) {
            double meanComputing = (double) computingSum / looks;
            steer(perRunNanos(computedNanos.sum() - computedAtStart, runs - runsAtStart, meanComputing),
                    targetNanos(meanComputing), meanComputing);
        }
        startPeriod(now, runs, computingNow);
    }

    /** @return the CPU each computing request got per run the loops began */
    private static long perRunNanos(long computed, long runs, double meanComputing) {
        return (long) (computed / (double) Math.max(1, runs) / Math.max(1.0, meanComputing));
    }

    /**
     * @return stock NIO's CPU per computing request per run, beside {@code meanComputing} of them: the more there are
     *         per CPU, the more each gets, {@code n / (n + 1)} of {@link #TARGET_NANOS_PER_CPU} on one CPU
     */
    long targetNanos(double meanComputing) {
        double contending = Math.max(1.0, meanComputing) + cpus - 1;
        return (long) (TARGET_NANOS_PER_CPU * cpus * contending / (contending + 1));
    }

    /**
     * @param targetNanos stock's CPU per computing request per run ({@link #targetNanos(double)})
     * @param meanComputing computing requests on average over the period, in a lane or waiting for one: more than
     *        the lanes allows one step above the configured priority
     */
    private void steer(long perRun, long targetNanos, double meanComputing) {
        boolean laneBound = lanes > 0 && meanComputing > lanes;
        int s = steps;
        int highest = laneBound || perRun * 2 < targetNanos ? STEP_ABOVE : 0;
        if (s < highest || (perRun > targetNanos && s < MAX_STEPS)) {
            // Too much CPU per run, or no longer the evidence for the step above: as many steps as the excess asks
            // at a seventh each, the least a step moved it, so that the steps do not overshoot.
            int down = perRun > targetNanos ? stepsFor(perRun / (double) targetNanos) : 1;
            steps = Math.min(MAX_STEPS, s + down);
            stepsDown.add(steps - s);
        } else if (perRun * 4 < targetNanos * 3 && s > highest) {
            steps = s - 1;
            stepsUp.increment();
        }
        loopsYield = steps == STEP_ABOVE && perRun * 4 < targetNanos * 3 && lanes > 0 && meanComputing > lanes + 1;
    }

    /**
     * @return whether the loops should give up their CPU once a round for the computing requests: they run one step
     *         above their configured priority, still get under three quarters of stock's CPU per run, and more than
     *         one of them waits for a lane (see the class comment)
     */
    boolean loopsYield() {
        return loopsYield;
    }

    /** @return the steps down that take at most {@code excess} (over 1) away, at least one */
    static int stepsFor(double excess) {
        return Math.max(1, (int) (Math.log(excess) / Math.log(STEP_EFFECT)));
    }

    /**
     * The steps are those of the computing requests that ran: when none runs, the next ones are another mix, which
     * starts at the configured priority rather than at a step learnt beside requests that are gone.
     */
    private void backToConfigured() {
        int s = steps;
        (s < 0 ? stepsDown : stepsUp).add(Math.abs(s));
        steps = 0;
        loopsYield = false;
    }

    /** A period starts with this look, which saw {@code computingNow} computing requests. */
    private void startPeriod(long now, long runs, int computingNow) {
        periodStart = now;
        runsAtStart = runs;
        computedAtStart = computedNanos.sum();
        finishedAtStart = finished.sum();
        computingSum = computingNow;
        looks = 1;
    }

    /** @return steps the computing requests went lower */
    public long getStepsDown() {
        return stepsDown.sum();
    }

    /** @return steps they came back */
    public long getStepsUp() {
        return stepsUp.sum();
    }
}
