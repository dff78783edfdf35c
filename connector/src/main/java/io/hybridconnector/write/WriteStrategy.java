package io.hybridconnector.write;

import java.util.Locale;
import java.util.function.Function;

/**
 * The names of the write strategies, as the connector attribute {@code writeStrategy} gives them, and the class that
 * implements each ({@link BlockingWrite}; seeds/000 sections 4-5). Adding a strategy: its class, and its name here.
 */
public enum WriteStrategy {

    /** The default: {@link HybridWrite} (light responses in one write, the rest behind for the loop). */
    HYBRID(HybridWrite::new),

    /** SingleT-Async: {@link DirectWrite} (retry at once until done, within the write deadline). */
    DIRECT(DirectWrite::new),

    /** NettyServer: {@link SpinWrite} (a quantum of 16 writes, then wait for writability). */
    SPIN(SpinWrite::new);

    private final Function<ResponseWriter, BlockingWrite> factory;

    WriteStrategy(Function<ResponseWriter, BlockingWrite> factory) {
        this.factory = factory;
    }

    /** One connection's instance of the strategy, writing through {@code writer}. */
    BlockingWrite newWrite(ResponseWriter writer) {
        return factory.apply(writer);
    }

    /**
     * @throws IllegalArgumentException naming the attribute and the accepted values
     */
    public static WriteStrategy parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            StringBuilder accepted = new StringBuilder();
            for (WriteStrategy s : values()) {
                accepted.append(accepted.length() == 0 ? "" : ", ").append(s.attributeValue())
                        .append(s == HYBRID ? " (default)" : "");
            }
            throw new IllegalArgumentException("writeStrategy=\"" + value + "\": accepted values are " + accepted);
        }
    }

    public String attributeValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
