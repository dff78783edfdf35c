package io.hybridconnector.write;

import java.util.Locale;

/**
 * How a blocking response write meets a socket that cannot take the whole response at once (seeds/000 sections 4-5).
 * Selected with the connector attribute {@code writeStrategy}.
 */
public enum WriteStrategy {

    /**
     * The default, the paper's HybridNetty done fully: responses of light request classes leave in one direct write
     * with no bookkeeping; what the kernel does not take, and every response of a class learnt to be heavy, goes to a
     * bounded per-connection write-behind buffer that the connection's event loop flushes when the socket is
     * writable, so the request's thread is free at once. Above the bound the owner thread waits for writability.
     */
    HYBRID,

    /** SingleT-Async: write until done, retrying at once when the kernel takes nothing (spins in user space). */
    DIRECT,

    /**
     * NettyServer: up to {@link #SPIN_QUANTUM} progress-making writes in a row, then wait for writability on the
     * owner thread. Bounds the spin, but pays the bookkeeping on every response.
     */
    SPIN;

    /** Netty's default {@code writeSpinCount}. */
    public static final int SPIN_QUANTUM = 16;

    /**
     * @throws IllegalArgumentException naming the attribute and the accepted values
     */
    public static WriteStrategy parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("writeStrategy=\"" + value + "\": accepted values are hybrid " +
                    "(default), direct, spin");
        }
    }

    public String attributeValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
