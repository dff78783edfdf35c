package io.hybridconnector.rubbos.web.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The comments of one story, read with a single JOIN query and arranged as a tree in memory, and their rendering:
 * a comment shown "in full" (subject, author, date, body, Reply / Parent / Moderate links) or as a one-line link.
 * <p>
 * The 2005 revision of the original replaced per-comment queries by JOINs and one query per tree level; reading
 * the story's comments at once (one indexed range on story_id) goes one step further, and costs the same whether
 * the page shows the whole story or one sub-thread. Request thread.
 */
public final class CommentTree {

    /** One comment row, with its nickname resolved by the JOIN. */
    public record Comment(int id, int parent, int childs, int rating, LocalDateTime date, String subject,
                          String body, String nickname) {
    }

    private final CommentTable table;
    private final int storyId;
    private final Map<Integer, Comment> byId = new HashMap<>();
    private final Map<Integer, List<Comment>> children = new HashMap<>();

    private CommentTree(CommentTable table, int storyId) {
        this.table = table;
        this.storyId = storyId;
    }

    public static CommentTree load(Connection connection, CommentTable table, int storyId) throws SQLException {
        CommentTree tree = new CommentTree(table, storyId);
        try (PreparedStatement select = connection.prepareStatement("SELECT c.id, c.parent, c.childs, c.rating,"
                + " c.date, c.subject, c.comment, u.nickname FROM " + table.table + " c LEFT JOIN users u"
                + " ON u.id = c.writer WHERE c.story_id = ? ORDER BY c.date, c.id")) {
            select.setInt(1, storyId);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    Comment c = new Comment(rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getInt(4),
                            rs.getObject(5, LocalDateTime.class), rs.getString(6), rs.getString(7),
                            rs.getString(8) == null ? Authenticator.ANONYMOUS.nickname() : rs.getString(8));
                    tree.byId.put(c.id(), c);
                    tree.children.computeIfAbsent(c.parent(), k -> new ArrayList<>()).add(c);
                }
            }
        }
        return tree;
    }

    public Comment get(int id) {
        return byId.get(id);
    }

    /** @return the direct replies to {@code parent} (0 = the top-level comments), oldest first */
    public List<Comment> childrenOf(int parent) {
        return children.getOrDefault(parent, List.of());
    }

    /** @return number of comments per rating, -1..5, as the rating filter chooser shows */
    public int[] countsByRating() {
        int[] counts = new int[7];
        for (Comment c : byId.values()) {
            if (c.rating() >= -1 && c.rating() <= 5) {
                counts[c.rating() + 1]++;
            }
        }
        return counts;
    }

    /** Appends the form that re-displays this story's comments with another filter or display mode. */
    public void appendFilterForm(Page page, int commentId, int filter, int display) {
        int[] counts = countsByRating();
        page.form("ViewComment").hidden("commentId", commentId).hidden("storyId", storyId)
            .hidden("comment_table", table.table).raw("<select name=\"filter\">\n");
        int atLeast = 0;
        for (int rating = 5; rating >= -1; rating--) {
            atLeast += counts[rating + 1];
            page.raw("<option value=\"" + rating + "\"" + (rating == filter ? " selected" : "") + ">" + rating
                    + ": " + atLeast + " comments</option>\n");
        }
        page.raw("</select> <select name=\"display\">\n");
        String[] modes = {"Main threads", "Nested", "All comments"};
        for (int mode = 0; mode < modes.length; mode++) {
            page.raw("<option value=\"" + mode + "\"" + (mode == display ? " selected" : "") + ">" + modes[mode]
                    + "</option>\n");
        }
        page.raw("</select> <input type=\"submit\" value=\"Refresh display\"></form>\n");
    }

    /**
     * Appends {@code roots} and what is below them.
     *
     * @param display 0 = the roots only, 1 = roots in full and their descendants as links, 2 = everything in full
     */
    public void append(Page page, List<Comment> roots, int filter, int display) {
        for (Comment root : roots) {
            if (root.rating() < filter) {
                continue;
            }
            appendFull(page, root);
            if (display > 0) {
                appendDescendants(page, root.id(), filter, display == 2);
            }
        }
    }

    private void appendDescendants(Page page, int parent, int filter, boolean full) {
        List<Comment> replies = childrenOf(parent);
        if (replies.isEmpty()) {
            return;
        }
        page.raw("<blockquote>\n");
        for (Comment reply : replies) {
            if (reply.rating() < filter) {
                continue;
            }
            if (full) {
                appendFull(page, reply);
            } else {
                page.raw("<p>").link(reply.subject(), "ViewComment", "commentId", reply.id(), "filter", 0,
                        "display", 1, "storyId", storyId, "comment_table", table.table)
                    .raw(" by ").text(reply.nickname()).raw(" on ").text(Html.date(reply.date()))
                    .raw(" (score ").raw(Integer.toString(reply.rating())).raw(")</p>\n");
            }
            appendDescendants(page, reply.id(), filter, full);
        }
        page.raw("</blockquote>\n");
    }

    private void appendFull(Page page, Comment c) {
        page.raw("<table width=\"100%\" bgcolor=\"#eeeeee\"><tr><td>")
            .link(c.subject().isEmpty() ? "(no subject)" : c.subject(), "ViewComment", "commentId", c.id(),
                  "filter", 0, "display", 1, "storyId", storyId, "comment_table", table.table)
            .raw(" (Score: ").raw(Integer.toString(c.rating())).raw(")<br>Posted by ").text(c.nickname())
            .raw(" on ").text(Html.date(c.date())).raw("</td></tr></table>\n<p>").text(c.body()).raw("</p>\n<p>[ ")
            .link("Reply to this", "PostComment", "storyId", storyId, "parent", c.id(),
                  "comment_table", table.table).raw(" | ")
            .link("Parent", "ViewComment", "commentId", c.parent(), "filter", 0, "display", 1, "storyId", storyId,
                  "comment_table", table.table).raw(" | ")
            .link("Moderate", "ModerateComment", "commentId", c.id(), "comment_table", table.table)
            .raw(" ]</p>\n");
    }
}
