package io.hybridconnector.classify;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.apache.coyote.Request;

/**
 * What the connector has learnt about each request class (method + path), at run time (the idea: seeds/000), for
 * two questions: does a response of this class fit what the socket accepts at once (light), or does it leave bytes behind
 * (heavy)? And does a request of this class block its thread (sleep, lock, JDBC), so that its loop should move to
 * another thread before it runs instead of waiting for the stall detector (blocking)?
 * <p>
 * Consulted only for writes larger than the connection's write buffer, the only ones where the category changes what
 * the write path does: a light class offers the application's buffer to the kernel directly; a heavy class copies it
 * once into direct write-behind memory, so that the JDK does not copy the unsent rest of a heap buffer again on
 * every partial write. Small responses never reach the classifier, so classifying costs them nothing.
 * <p>
 * A class is re-classified when its behaviour changes: one partial write makes a light class heavy; a heavy class
 * whose responses fit {@link #FITS_TO_TURN_LIGHT} times in a row becomes light again. The table is bounded;
 * classes beyond {@code capacity} are treated as light and not remembered. Any thread.
 */
public final class RequestClassifier {

    /** Consecutive whole-response writes after which a heavy class is light again. */
    static final int FITS_TO_TURN_LIGHT = 8;

    /**
     * Block score: a request that blocked on its loop adds {@link #BLOCKED_WEIGHT}, one that did not takes 1 off; a
     * class is blocking from {@link #BLOCKING_SCORE}, so one stray block (the first request of a fresh application
     * loads classes and initialises its servlet) does not make it so, two in a row do.
     */
    static final int BLOCKED_WEIGHT = 3;
    static final int BLOCKING_SCORE = 6;
    static final int MAX_BLOCK_SCORE = 12;

    /**
     * Responses of a class that paused with 8 KB or more gathered that leave every 8 KB from their first byte, without
     * waiting for the stall detector; the next one gathers again, to see whether the class still pauses.
     */
    static final int PACED_RESPONSES = 16;

    private final ConcurrentHashMap<String,RequestClass> classes = new ConcurrentHashMap<>();
    /** Set once any request has blocked: until then the adapter does not even look requests up. */
    private volatile boolean anyBlocking;
    /** Set once any response paused with bytes gathered: until then writers do not look responses up for it. */
    private volatile boolean anyPaced;
    private final int capacity;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder reclassifications = new LongAdder();

    public RequestClassifier(int capacity) {
        this.capacity = capacity;
    }

    /**
     * @param key the request class, by default method and path ({@code "GET /size"})
     * @return the class's entry, or {@code null} when the table is full and the class is new
     */
    public RequestClass lookup(String key) {
        RequestClass c = classes.get(key);
        if (c != null) {
            hits.increment();
            return c;
        }
        misses.increment();
        if (classes.size() >= capacity) {
            return null;
        }
        return classes.computeIfAbsent(key, k -> new RequestClass());
    }

    /** @return a request's class: its method and path ({@code "GET /app/size"}) */
    public static String keyOf(Request request) {
        return request.method().toString() + ' ' + request.requestURI().toString();
    }

    /** @return whether any response has ever paused with 8 KB or more gathered (cheap; read once per such response) */
    public boolean anyPaced() {
        return anyPaced;
    }

    /** @return whether any request has ever blocked on a loop (cheap; read on every request) */
    public boolean anyBlocking() {
        return anyBlocking;
    }

    public long getBlockingClasses() {
        return classes.values().stream().filter(RequestClass::isBlocking).count();
    }

    public int size() {
        return classes.size();
    }

    public long getHits() {
        return hits.sum();
    }

    public long getMisses() {
        return misses.sum();
    }

    public long getReclassifications() {
        return reclassifications.sum();
    }

    public long getHeavyClasses() {
        return classes.values().stream().filter(RequestClass::isHeavy).count();
    }

    public void resetCounters() {
        hits.reset();
        misses.reset();
        reclassifications.reset();
    }

    /** One request class's category. Updated racily by concurrent requests: a lost update costs one response. */
    public final class RequestClass {

        private volatile boolean heavy;
        private int fitsInARow;
        private volatile int blockScore;
        private volatile int pacedLeft;
        /** CPU time of this class's last request that computed past half the budget; 0 once one waited instead. */
        private volatile long computedNanos;

        /**
         * A response of this class paused with 8 KB or more gathered (the stall detector wrote them, or its thread
         * came back for them late): the next {@link #PACED_RESPONSES} leave every 8 KB from the start.
         */
        public void paused() {
            pacedLeft = PACED_RESPONSES;
            anyPaced = true;
        }

        /**
         * Asked once per response, when 8 KB are first gathered.
         *
         * @return whether this response should leave every 8 KB, as stock's does, rather than gather on
         */
        public boolean pacesNext() {
            int left = pacedLeft;
            if (left <= 0) {
                return false;
            }
            pacedLeft = left - 1;
            return true;
        }

        public boolean isBlocking() {
            return blockScore >= BLOCKING_SCORE;
        }

        /** @return whether requests of this class have blocked lately, so that an inline run is worth timing */
        public boolean isSuspect() {
            return blockScore > 0;
        }

        /**
         * @return {@code true} if a request of this class should give its loop away before it runs, because
         *         requests of this class held loops. Every such request is timed where it runs instead
         *         ({@link #ranOffLoop}), so none has to hold a loop again to show that the class became short.
         */
        public boolean predictBlocking() {
            return isBlocking();
        }

        /**
         * A request of this class ran after giving its loop away: was it long (by wall time, so a request that shares
         * a busy core counts as long, the safe side)? Short runs take the score down one at a time, long ones keep
         * it up; a class that stopped blocking runs on the loop again after a few short requests.
         */
        public void ranOffLoop(boolean longRun) {
            int score = blockScore;
            int next = longRun ? Math.min(score + 1, MAX_BLOCK_SCORE) : Math.max(score - 1, 0);
            if ((score >= BLOCKING_SCORE) != (next >= BLOCKING_SCORE)) {
                reclassifications.increment();
            }
            blockScore = next;
        }

        /** A request of this class ran on a loop (not handed off in advance); did it block? */
        public void ranOnLoop(boolean blocked) {
            int score = blockScore;
            int next = blocked ? Math.min(score + BLOCKED_WEIGHT, MAX_BLOCK_SCORE) : Math.max(score - 1, 0);
            if (blocked) {
                anyBlocking = true; // from now on requests are looked up, so that suspect classes are timed
            }
            if ((score >= BLOCKING_SCORE) != (next >= BLOCKING_SCORE)) {
                reclassifications.increment();
            }
            blockScore = next;
        }

        /**
         * @return the CPU time of this class's last long request if it computed, rather than waited: such a request
         *         runs in a {@code ComputeLane}; 0 if the class's long requests wait (or none was measured yet)
         */
        public long computedNanos() {
            return computedNanos;
        }

        /** @param cpuNanos a long request of this class used this much CPU; 0: it waited most of its time */
        public void computed(long cpuNanos) {
            computedNanos = cpuNanos;
        }

        public boolean isHeavy() {
            return heavy;
        }

        /** The whole response was accepted by the kernel in the first write. */
        public void fitted() {
            if (heavy && ++fitsInARow >= FITS_TO_TURN_LIGHT) {
                heavy = false;
                fitsInARow = 0;
                reclassifications.increment();
            }
        }

        /** The kernel took less than the response: bytes were left behind. */
        public void leftBehind() {
            fitsInARow = 0;
            if (!heavy) {
                heavy = true;
                reclassifications.increment();
            }
        }
    }
}
