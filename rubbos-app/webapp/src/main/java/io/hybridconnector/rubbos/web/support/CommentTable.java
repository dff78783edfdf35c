package io.hybridconnector.rubbos.web.support;

/**
 * The two comment tables, live and archived. Pages pass the table name between interactions (as the original
 * does); it is matched against this closed list, so the only table names that reach SQL text are these constants.
 */
public enum CommentTable {

    COMMENTS("comments", "stories"),
    OLD_COMMENTS("old_comments", "old_stories");

    /** Table name, as sent in the {@code comment_table} parameter. */
    public final String table;
    /** The stories table whose stories these comments belong to. */
    public final String storyTable;

    CommentTable(String table, String storyTable) {
        this.table = table;
        this.storyTable = storyTable;
    }

    static CommentTable byName(String name) {
        for (CommentTable t : values()) {
            if (t.table.equals(name)) {
                return t;
            }
        }
        return null;
    }
}
