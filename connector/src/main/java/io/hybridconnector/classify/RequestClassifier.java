package io.hybridconnector.classify;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.apache.coyote.Request;

/**
 * What the connector has learnt about each request class, at run time (the idea: seeds/000), for two questions: does
 * a response of this class fit what the socket accepts at once (light), or does it leave bytes behind (heavy)? And does
 * a request of this class block its thread (sleep, lock, JDBC) or compute for long, so that its loop should move to
 * another thread before it runs instead of waiting for the stall detector (blocking)?
 * <p>
 * <b>A class is a path refined by its query.</b> The same path is often light or heavy by its parameters
 * ({@code /size?kb=0.1} and {@code /size?kb=10240}, {@code /report?rows=10} and {@code ?rows=100000}). Learnt by path
 * alone, one class mixed both: the heavy requests taught it to hand off, and then every light request of that path gave
 * its loop away and waited for a compute lane (measured on one core beside two 10 MB downloads of {@code /size}: light
 * p50 2-2.6 ms instead of 0.5 in the rounds where the class had flipped, light throughput 0.78-0.91x stock NIO's). So a
 * request with a query has a class of its own (method, path and query), whose <i>parent</i> is its path's class
 * (method and path, also the class of the path's requests without a query). What a request shows teaches its class and
 * the parent; a class answers from what it has seen itself, and from its parent only until it has seen something (its
 * first request), so that a query never seen before ({@code /report?id=73921}, unique per request) is predicted as its
 * path was. Paths are kept up to {@code capacity} (beyond it, requests are treated as light and not remembered, as
 * before); queried classes up to {@code capacity} too, after which that table starts afresh, so parameters that never
 * repeat cost a table of at most that size and the classes that do repeat are learnt again from their parent.
 * <p>
 * Writes consult the classifier only when larger than the connection's write buffer, the only ones where the category
 * changes what the write path does: a light class offers the application's buffer to the kernel directly; a heavy class
 * copies it once into direct write-behind memory, so that the JDK does not copy the unsent rest of a heap buffer again
 * on every partial write. Small responses never reach the classifier, so classifying costs them nothing.
 * <p>
 * A class is re-classified when its behaviour changes: one partial write makes a light class heavy; a heavy class
 * whose responses fit {@link #FITS_TO_TURN_LIGHT} times in a row becomes light again. Any thread.
 */
public final class RequestClassifier {

    /** Consecutive whole-response writes after which a heavy class is light again. */
    static final int FITS_TO_TURN_LIGHT = 8;

    /**
     * Block score: a request that held its loop adds {@link #BLOCKED_WEIGHT}, one that did not takes 1 off; a
     * class is blocking from {@link #BLOCKING_SCORE}, so one stray block (the first request of a fresh application
     * loads classes and initialises its servlet) does not make it so, two in a row do.
     */
    static final int BLOCKED_WEIGHT = 3;
    /**
     * What a timed run on the loop adds when it waited most of its time for less than the budget, so that the stall
     * detector never saw it: less than a held loop, because a thread stopped for a moment by the JVM (a safepoint for
     * a deoptimisation or a collection's clean-up) looks the same, and a fresh application's first request plus one
     * such moment made a 0.1 KB class blocking (it then handed its loop off until sampled runs took the score down).
     * A class that really waits shows it on every timed run, and three in a row make it blocking.
     */
    static final int WAITED_WEIGHT = 2;
    static final int BLOCKING_SCORE = 6;
    static final int MAX_BLOCK_SCORE = 12;

    /**
     * Responses of a class that paused with 8 KB or more gathered that leave every 8 KB from their first byte, without
     * waiting for the stall detector; the next one gathers again, to see whether the class still pauses.
     */
    static final int PACED_RESPONSES = 16;

    /** Paths: method and path. */
    private final ConcurrentHashMap<ClassKey,RequestClass> classes = new ConcurrentHashMap<>();
    /** Paths refined by a query: method, path, '?' and query. */
    private final ConcurrentHashMap<ClassKey,RequestClass> queried = new ConcurrentHashMap<>();
    /** Set once any request has blocked: until then the adapter does not even look requests up. */
    private volatile boolean anyBlocking;
    /** Set once any response paused with bytes gathered: until then writers do not look responses up for it. */
    private volatile boolean anyPaced;
    private final int capacity;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder reclassifications = new LongAdder();
    private final LongAdder queriedResets = new LongAdder();

    public RequestClassifier(int capacity) {
        this.capacity = capacity;
    }

    /** @return a request's class: its method and path, refined by its query if it has one (no allocation once seen) */
    public RequestClass lookup(Request request) {
        return lookup(ClassKey.probe(request));
    }

    /**
     * Looks up the class of a request whose line is still in the socket's read buffer, before Tomcat parses it
     * ({@link ClassKey#probe(ByteBuffer)}). The buffer is left as it was.
     *
     * @return the class's entry, or {@code null} when the bytes hold no complete origin-form request line or the path
     *         is new and the table of paths is full
     */
    public RequestClass lookupRequestLine(ByteBuffer line) {
        ClassKey probe = ClassKey.probe(line);
        return probe == null ? null : lookup(probe);
    }

    /**
     * @param path  method and path ({@code "GET /size"})
     * @param query the query string, or {@code null}
     * @return the class's entry, or {@code null} when the path is new and the table of paths is full
     */
    public RequestClass lookup(String path, String query) {
        return lookup(ClassKey.of(path, query));
    }

    /** @param probe the class's key; a query's probe is left naming its path */
    private RequestClass lookup(ClassKey probe) {
        if (!probe.hasQuery()) {
            RequestClass c = counted(classes.get(probe));
            return c != null ? c : newPath(probe);
        }
        RequestClass c = counted(queried.get(probe));
        if (c != null) {
            return c;
        }
        ClassKey key = probe.copy();
        probe.toPath();
        RequestClass parent = classes.get(probe);
        if (parent == null && (parent = newPath(probe)) == null) {
            return null;
        }
        if (queried.size() >= capacity) {
            queried.clear();
            queriedResets.increment();
        }
        RequestClass p = parent;
        return queried.computeIfAbsent(key, k -> new RequestClass(p));
    }

    /** Counts one lookup of a request's own class, found or not (the parent's lookup for a new query is not one). */
    private RequestClass counted(RequestClass found) {
        (found != null ? hits : misses).increment();
        return found;
    }

    /** @return a new path's class, or {@code null} when the table of paths is full */
    private RequestClass newPath(ClassKey path) {
        return classes.size() >= capacity ? null : classes.computeIfAbsent(path.copy(), k -> new RequestClass(null));
    }

    /** @return whether any response has ever paused with 8 KB or more gathered (cheap; read once per such response) */
    public boolean anyPaced() {
        return anyPaced;
    }

    /** @return whether any request has ever blocked on a loop (cheap; read on every request) */
    public boolean anyBlocking() {
        return anyBlocking;
    }

    /** @return paths learnt blocking, themselves or for some of their queries */
    public long getBlockingClasses() {
        return paths(RequestClass::isBlocking);
    }

    /** @return paths and queried classes remembered */
    public int size() {
        return classes.size() + queried.size();
    }

    /** @return how often the table of queried classes was full and started afresh */
    public long getQueriedResets() {
        return queriedResets.sum();
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

    /** @return paths whose large responses are learnt heavy, their own or those of some of their queries */
    public long getHeavyClasses() {
        return paths(RequestClass::isHeavy);
    }

    /** For the MBean's gauges, which an operator reads by path: a path counts once, for itself or its queries. */
    private long paths(Predicate<RequestClass> property) {
        return Stream.concat(classes.values().stream().filter(property),
                queried.values().stream().filter(property).map(c -> c.parent)).distinct().count();
    }

    public void resetCounters() {
        hits.reset();
        misses.reset();
        reclassifications.reset();
        queriedResets.reset();
    }

    /**
     * One request class's category. Updated racily by concurrent requests: a lost update costs one response. A queried
     * class answers from its parent (its path's class) until it has seen a request of its own, and teaches the parent
     * what it sees; the parent's flips are not counted as reclassifications (the class that decided is).
     */
    public final class RequestClass {

        /** The path's class, for a class refined by a query; {@code null} for a path's class. */
        private final RequestClass parent;
        /**
         * Whether a run of this class was judged (blocked or not): until then its parent predicts for it. A path's
         * class answers for itself from the start.
         */
        private volatile boolean ran;
        /** Whether a large response of this class was written: until then its parent says heavy or light (as above). */
        private volatile boolean wrote;
        private volatile boolean heavy;
        private int fitsInARow;
        private volatile int blockScore;
        private volatile int pacedLeft;
        /** CPU time of this class's last request that computed past half the budget; 0 once one waited instead. */
        private volatile long computedNanos;

        RequestClass(RequestClass parent) {
            this.parent = parent;
            this.ran = parent == null;
            this.wrote = parent == null;
        }

        /** The class whose runs answer for this one: itself once it ran, its parent until then. */
        private RequestClass runs() {
            return ran ? this : parent;
        }

        /** The class whose responses answer for this one: itself once it wrote one, its parent until then. */
        private RequestClass writes() {
            return wrote ? this : parent;
        }

        /** The class that keeps pacing: the path's, since pausing is the servlet's habit rather than its input's. */
        private RequestClass paces() {
            return parent == null ? this : parent;
        }

        /**
         * A response of this class paused with 8 KB or more gathered (the stall detector wrote them, or its thread
         * came back for them late): the next {@link #PACED_RESPONSES} of its path leave every 8 KB from the start.
         */
        public void paused() {
            paces().pacedLeft = PACED_RESPONSES;
            anyPaced = true;
        }

        /**
         * Asked once per response, when 8 KB are first gathered.
         *
         * @return whether this response should leave every 8 KB, as stock's does, rather than gather on
         */
        public boolean pacesNext() {
            RequestClass c = paces();
            int left = c.pacedLeft;
            if (left <= 0) {
                return false;
            }
            c.pacedLeft = left - 1;
            return true;
        }

        public boolean isBlocking() {
            return runs().blockScore >= BLOCKING_SCORE;
        }

        /** @return whether requests of this class have blocked lately, so that an inline run is worth timing */
        public boolean isSuspect() {
            return runs().blockScore > 0;
        }

        /**
         * @return {@code true} if a request of this class should give its loop away before it runs, because
         *         requests of this class held loops. Every such request is timed where it runs instead
         *         ({@link #ranOffLoop}), so none has to hold a loop again to show that the class became short.
         */
        public boolean predictBlocking() {
            return isBlocking();
        }

        /** @return whether this class answers from its own runs (a path's class always does) */
        public boolean hasRun() {
            return ran;
        }

        /**
         * A request of this class ran after giving its loop away: was it long (by wall time, so a request that shares
         * a busy core counts as long, the safe side)? Short runs take the score down one at a time, long ones keep
         * it up; a class that stopped blocking runs on the loop again after a few short requests.
         */
        public void ranOffLoop(boolean longRun) {
            learn(longRun ? 1 : -1);
        }

        /** A request of this class ran on a loop (not handed off in advance): did the detector move the loop away? */
        public void ranOnLoop(boolean blocked) {
            if (blocked) {
                anyBlocking = true; // from now on requests are looked up, so that suspect classes are timed
            }
            learn(blocked ? BLOCKED_WEIGHT : -1);
        }

        /**
         * A timed request of this class ran on a loop and spent most of its time waiting, for less than the budget
         * (the detector did not move it): a short wait, or the JVM stopping the thread for a moment.
         */
        public void waitedOnLoop() {
            anyBlocking = true;
            learn(WAITED_WEIGHT);
        }

        /** A run's verdict for this class and, uncounted, for its path's. */
        private void learn(int delta) {
            score(delta, true);
            if (parent != null) {
                parent.score(delta, false);
            }
        }

        private void score(int delta, boolean counted) {
            int score = blockScore;
            int next;
            if (ran) {
                next = Math.max(0, Math.min(score + delta, MAX_BLOCK_SCORE));
            } else {
                // Its parent answered until now. Where this first run agrees with the parent's verdict, the verdict
                // stands (a new query of a blocking path that blocked too); otherwise this query's own runs decide
                // from nothing: a first short run puts it on the short side at once (the light query of a heavy path),
                // and a first block counts as one block, so a stray one (a fresh application's class loading) does
                // not make it blocking, even after a stray block of another query of its path.
                score = parent.blockScore;
                if (delta > 0) {
                    next = score >= BLOCKING_SCORE ? Math.min(score + delta, MAX_BLOCK_SCORE) : delta;
                } else {
                    next = 0;
                }
                computedNanos = parent.computedNanos;
                ran = true;
            }
            if (counted && (score >= BLOCKING_SCORE) != (next >= BLOCKING_SCORE)) {
                reclassifications.increment();
            }
            blockScore = next;
        }

        /**
         * @return the CPU time of this class's last long request if it computed, rather than waited: such a request
         *         computes off the loops; 0 if the class's long requests wait (or none was measured yet)
         */
        public long computedNanos() {
            return runs().computedNanos;
        }

        /** @param cpuNanos a long request of this class used this much CPU; 0: it waited most of its time */
        public void computed(long cpuNanos) {
            computedNanos = cpuNanos;
            if (parent != null) {
                parent.computedNanos = cpuNanos;
            }
        }

        public boolean isHeavy() {
            return writes().heavy;
        }

        /** The whole response was accepted by the kernel in the first write. */
        public void fitted() {
            fitted(true);
            if (parent != null) {
                parent.fitted(false);
            }
        }

        private void fitted(boolean counted) {
            wroteOne();
            if (heavy && ++fitsInARow >= FITS_TO_TURN_LIGHT) {
                heavy = false;
                fitsInARow = 0;
                if (counted) {
                    reclassifications.increment();
                }
            }
        }

        /** The kernel took less than the response: bytes were left behind. */
        public void leftBehind() {
            leftBehind(true);
            if (parent != null) {
                parent.leftBehind(false);
            }
        }

        private void leftBehind(boolean counted) {
            wroteOne();
            fitsInARow = 0;
            if (!heavy) {
                heavy = true;
                if (counted) {
                    reclassifications.increment();
                }
            }
        }

        private void wroteOne() {
            if (!wrote) {
                heavy = parent.heavy; // the parent answered until now: start from what it had learnt
                wrote = true;
            }
        }
    }
}
