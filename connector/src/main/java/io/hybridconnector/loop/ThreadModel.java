package io.hybridconnector.loop;

import java.util.Locale;

/**
 * Which thread runs what: our default and the server types of seeds/000 (Table 3), all on the same endpoint so that
 * they can be compared on one Tomcat. Selected with the connector attribute {@code threadModel}. Stock
 * {@code Http11NioProtocol} is the paper's sTomcat-Async baseline.
 */
public enum ThreadModel {

    /**
     * The default: the loop's leader reads, runs the servlet and writes; a request that blocks moves the loop to
     * another thread (LAIO). No thread switch on the fast path.
     */
    HYBRID,

    /**
     * sTomcat-Async-Fix: the loop only selects; each ready connection goes to a worker thread, which reads, runs the
     * servlet and writes, then gives the connection back to the loop. Two hand-offs per request.
     */
    REACTOR,

    /**
     * SingleT-Async, N copies: {@code threads} loops, each led by one thread for good, that does everything and never
     * hands off; a request that blocks stalls its loop's connections.
     */
    SINGLE,

    /**
     * sTomcat-Sync (Tomcat 7's BIO): one thread per connection, from its first request until it closes, waiting for
     * the next request on the connection itself; {@code threads} bounds the connections served at once.
     */
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

    /** @return whether a blocked request moves the loop to another thread */
    public boolean handsOff() {
        return this == HYBRID;
    }
}
