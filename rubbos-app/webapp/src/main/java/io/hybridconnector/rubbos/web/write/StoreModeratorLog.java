package io.hybridconnector.rubbos.web.write;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
 * An author's moderation: moves the comment's rating and its writer's rating by the vote (ratings stay within
 * -1..5) and logs the vote. Only users with author access may moderate. Any container thread.
 */
public class StoreModeratorLog extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Moderation stored";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, NotFoundException, SQLException {
        CommentTable table = params.commentTable();
        String nickname = params.text("nickname", 20);
        String password = params.text("password", 20);
        int commentId = params.id("commentId");
        int rating = params.integer("rating", -1, 1);
        try (Connection c = connection()) {
            Authenticator.User moderator = Authenticator.authenticate(c, nickname, password);
            if (!moderator.isAuthor()) {
                page.raw("<p>Sorry, but this feature is only accessible by users with an author access.</p>\n");
                return;
            }
            int newRating = Transaction.run(c, tx -> moderate(tx, table, commentId, rating, moderator.id()));
            page.raw("<p>Your moderation has been successfully stored. The comment's score is now ")
                .raw(Integer.toString(newRating)).raw(".</p>\n");
        }
    }

    private static int moderate(Connection tx, CommentTable table, int commentId, int rating, int moderatorId)
            throws SQLException, NotFoundException {
        int writer;
        int current;
        try (PreparedStatement select = tx.prepareStatement("SELECT writer, rating FROM " + table.table
                + " WHERE id = ?")) {
            select.setInt(1, commentId);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    throw new NotFoundException("there is no comment " + commentId + " to moderate.");
                }
                writer = rs.getInt(1);
                current = rs.getInt(2);
            }
        }
        boolean atBound = (current <= -1 && rating < 0) || (current >= 5 && rating > 0);
        if (rating != 0 && !atBound) {
            update(tx, "UPDATE users SET rating = rating + ? WHERE id = ?", rating, writer);
            update(tx, "UPDATE " + table.table + " SET rating = rating + ? WHERE id = ?", rating, commentId);
            current += rating;
        }
        try (PreparedStatement insert = tx.prepareStatement("INSERT INTO moderator_log (moderator_id, comment_id,"
                + " rating, date) VALUES (?, ?, ?, ?)")) {
            insert.setInt(1, moderatorId);
            insert.setInt(2, commentId);
            insert.setInt(3, rating);
            insert.setObject(4, LocalDateTime.now().truncatedTo(ChronoUnit.SECONDS));
            insert.executeUpdate();
        }
        return current;
    }

    private static void update(Connection tx, String sql, int delta, int id) throws SQLException {
        try (PreparedStatement update = tx.prepareStatement(sql)) {
            update.setInt(1, delta);
            update.setInt(2, id);
            update.executeUpdate();
        }
    }
}
