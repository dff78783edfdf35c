package io.hybridconnector.write;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The paper's map from request class to response category (seeds/000 section 5), learnt at run time: does a
 * response of this class fit what the socket accepts at once (light), or does it leave bytes behind (heavy)?
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
public final class ResponseClassifier {

    /** Consecutive whole-response writes after which a heavy class is light again. */
    static final int FITS_TO_TURN_LIGHT = 8;

    private final ConcurrentHashMap<String,RequestClass> classes = new ConcurrentHashMap<>();
    private final int capacity;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder reclassifications = new LongAdder();

    public ResponseClassifier(int capacity) {
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
