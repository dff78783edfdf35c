package io.hybridconnector.schedule;

import java.util.Locale;

import io.hybridconnector.loop.LoopCounters;
import io.hybridconnector.loop.LoopThreadPool;
import io.hybridconnector.loop.TimeSlicing;

/**
 * The {@code threadModel} attribute's names, mapped to the {@link Scheduler} that implements each; nothing else.
 * {@code hybrid} is the connector; {@code reactor}, {@code single} and {@code sync} are research variants, the server
 * types of seeds/000 (Table 3) on one endpoint so that they can be compared on one Tomcat (stock
 * {@code Http11NioProtocol} is the paper's sTomcat-Async baseline). Configuration only: the hot classes never ask
 * which model runs, they call the endpoint's one {@link Scheduler}.
 */
public enum ThreadModel {

    /** The default ({@link HybridScheduler}): the loop's leader runs a request inline; a request that blocks moves the loop. */
    HYBRID,

    /** sTomcat-Async-Fix ({@link ReactorScheduler}): the loop only selects; every event runs on a worker. */
    REACTOR,

    /** SingleT-Async, N copies ({@link SingleScheduler}): {@code threads} loops, each led by one thread for good. */
    SINGLE,

    /** sTomcat-Sync, Tomcat 7's BIO ({@link SyncScheduler}): one thread per connection for its whole life. */
    SYNC;

    /**
     * @throws IllegalArgumentException naming the attribute and the accepted values
     */
    public static ThreadModel parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("threadModel=\"" + value + "\": accepted values are hybrid " +
                    "(default), reactor, single, sync");
        }
    }

    public String attributeValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return whether a blocked request moves the loop to another thread (a stall detector runs) */
    public boolean handsOff() {
        return this == HYBRID;
    }

    /** @return how many event loops to run: {@code single} runs one per thread, the others {@code loops} */
    public int loops(int configuredLoops, int threads) {
        return this == SINGLE ? threads : Math.max(1, Math.min(configuredLoops, threads));
    }

    /**
     * Made once per start; every connection of that start keeps it in a final field.
     *
     * @param executorForBlocking the operator gave an executor: connections whose last request left its loop start
     *        their next one there (only under {@code hybrid}, the one model that hands off)
     */
    public Scheduler newScheduler(LoopThreadPool pool, TimeSlicing timeSlicing, LoopCounters counters,
            boolean executorForBlocking) {
        switch (this) {
            case HYBRID:
                return new HybridScheduler(pool, timeSlicing, counters, executorForBlocking);
            case REACTOR:
                return new ReactorScheduler(pool);
            case SINGLE:
                return new SingleScheduler();
            case SYNC:
                return new SyncScheduler(pool);
            default:
                throw new AssertionError(this); // every constant has a case above
        }
    }
}
