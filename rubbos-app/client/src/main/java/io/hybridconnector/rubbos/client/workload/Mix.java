package io.hybridconnector.rubbos.client.workload;

import java.util.Locale;

/** The two workload mixes: which transition table user sessions and author sessions follow. */
public enum Mix {

    /** No writes, no forms; both kinds of session use the same table (the Fig 3 workload). */
    BROWSE_ONLY("browse_only", "browse_only"),
    /** Users post comments, submit stories and register; authors also moderate and review. */
    READ_WRITE("user_default", "author_default");

    private final String userTable;
    private final String authorTable;

    Mix(String userTable, String authorTable) {
        this.userTable = userTable;
        this.authorTable = authorTable;
    }

    public TransitionTable userTable() {
        return TransitionTable.builtIn(userTable);
    }

    public TransitionTable authorTable() {
        return TransitionTable.builtIn(authorTable);
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Mix of(String label) {
        for (Mix m : values()) {
            if (m.label().equalsIgnoreCase(label) || m.name().equalsIgnoreCase(label)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown mix '" + label + "': use browse-only or read-write");
    }
}
