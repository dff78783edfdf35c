package io.hybridconnector.reliability;

/** The two connectors every scenario compares, in the order they run within a round (stock first). Immutable. */
public enum Side {
    STOCK("stock NIO"),
    OURS("ours");

    private final String label;

    Side(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
