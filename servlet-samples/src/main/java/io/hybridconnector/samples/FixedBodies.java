package io.hybridconnector.samples;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Bodies made once per size and then reused, so that a response of that size costs the servlet almost nothing and
 * a measurement of it is a measurement of the connector. At most {@link #MAX_SIZES} sizes are kept; a request for
 * another size gets a fresh body, so a client walking through sizes cannot grow the heap without bound.
 */
final class FixedBodies {

    static final int MAX_SIZES = 32;

    private final ConcurrentMap<Integer, byte[]> bodies = new ConcurrentHashMap<>();

    /** The body of {@code bytes} bytes, the same array for every request of that size while it is kept. */
    byte[] of(int bytes) {
        byte[] body = bodies.get(bytes);
        return body != null ? body : keep(bytes);
    }

    /** The first request of a size, rare: serialised so that the bound holds exactly. */
    private synchronized byte[] keep(int bytes) {
        if (bodies.size() >= MAX_SIZES && !bodies.containsKey(bytes)) {
            return RandomBody.generate(bytes);
        }
        return bodies.computeIfAbsent(bytes, RandomBody::generate);
    }

    int kept() {
        return bodies.size();
    }
}
