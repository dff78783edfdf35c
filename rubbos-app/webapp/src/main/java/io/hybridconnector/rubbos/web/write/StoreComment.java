package io.hybridconnector.rubbos.web.write;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;

import io.hybridconnector.rubbos.web.support.Authenticator;
import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.CommentTable;
import io.hybridconnector.rubbos.web.support.NotFoundException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;
import io.hybridconnector.rubbos.web.support.Transaction;

/**
 * Stores a comment (unknown credentials post as the anonymous user) and counts it as a reply of its parent, in
 * one transaction. Any container thread.
 */
public class StoreComment extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Comment stored";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, NotFoundException, SQLException {
        CommentTable table = params.commentTable();
        String nickname = params.optionalText("nickname", "", 20);
        String password = params.optionalText("password", "", 20);
        int storyId = params.id("storyId");
        int parent = params.id("parent");
        String subject = params.text("subject", 100);
        String body = params.text("body", 65_535);
        try (Connection c = connection()) {
            Authenticator.User user = Authenticator.authenticate(c, nickname, password);
            Transaction.run(c, tx -> {
                if (parent != 0 && !bumpParent(tx, table, parent, storyId)) {
                    throw new NotFoundException("the comment you reply to (" + parent + ") does not exist.");
                }
                try (PreparedStatement insert = tx.prepareStatement("INSERT INTO " + table.table
                        + " (writer, story_id, parent, childs, rating, date, subject, comment)"
                        + " VALUES (?, ?, ?, 0, 0, ?, ?, ?)")) {
                    insert.setInt(1, user.id());
                    insert.setInt(2, storyId);
                    insert.setInt(3, parent);
                    insert.setObject(4, LocalDateTime.now().truncatedTo(ChronoUnit.SECONDS));
                    insert.setString(5, subject);
                    insert.setString(6, body);
                    insert.executeUpdate();
                }
                return null;
            });
            page.raw("<p>Your comment has been successfully stored in the ").text(table.table)
                .raw(" table, posted as ").text(user.nickname()).raw(".</p>\n<p>")
                .link("Back to the story", "ViewStory", "storyId", storyId).raw("</p>\n");
        }
    }

    private static boolean bumpParent(Connection tx, CommentTable table, int parent, int storyId)
            throws SQLException {
        try (PreparedStatement update = tx.prepareStatement("UPDATE " + table.table
                + " SET childs = childs + 1 WHERE id = ? AND story_id = ?")) {
            update.setInt(1, parent);
            update.setInt(2, storyId);
            return update.executeUpdate() == 1;
        }
    }
}
