package io.hybridconnector.rubbos.web.read;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.CommentTable;
import io.hybridconnector.rubbos.web.support.CommentTree;
import io.hybridconnector.rubbos.web.support.Html;
import io.hybridconnector.rubbos.web.support.NotFoundException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/**
 * One story in full, then its discussion: the top-level comments in full, their replies as nested one-line links.
 * The story is looked up in the live table and then in the archive; an archived story's comments are in
 * {@code old_comments}, and every link on the page carries that table name. The size of this page follows the
 * size of the thread, from a few KB to hundreds. Any container thread.
 */
public class ViewStory extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "View story";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, NotFoundException, SQLException {
        int storyId = params.id("storyId");
        try (Connection c = connection()) {
            CommentTable table = CommentTable.COMMENTS;
            if (!appendStory(c, table.storyTable, storyId, page)) {
                table = CommentTable.OLD_COMMENTS;
                if (!appendStory(c, table.storyTable, storyId, page)) {
                    throw new NotFoundException("there is no story with id " + storyId + ".");
                }
            }
            page.raw("<p>").link("Post a comment on this story", "PostComment", "storyId", storyId, "parent", 0,
                    "comment_table", table.table).raw("</p>\n");
            CommentTree tree = CommentTree.load(c, table, storyId);
            tree.appendFilterForm(page, 0, 0, 1);
            tree.append(page, tree.childrenOf(0), 0, 1);
        }
    }

    private static boolean appendStory(Connection c, String table, int storyId, Page page) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT s.title, s.body, s.date, u.nickname FROM " + table
                + " s JOIN users u ON u.id = s.writer WHERE s.id = ?")) {
            select.setInt(1, storyId);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                page.raw("<h2>").text(rs.getString(1)).raw("</h2>\n<p><i>Posted by ").text(rs.getString(4))
                    .raw(" on ").text(Html.date(rs.getObject(3, LocalDateTime.class))).raw("</i></p>\n<p>")
                    .text(rs.getString(2)).raw("</p>\n");
                return true;
            }
        }
    }
}
