package io.hybridconnector.rubbos.web.write;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.NotFoundException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;
import io.hybridconnector.rubbos.web.support.Transaction;

/**
 * Moves a submitted story into the live stories, keeping its date, writer and category. The delete comes first and
 * must hit exactly one row, so two authors accepting the same story at once publish it once (the original did the
 * copy and the delete outside any transaction). Any container thread.
 */
public class AcceptStory extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Story accepted";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, NotFoundException, SQLException {
        int storyId = params.id("storyId");
        try (Connection c = connection()) {
            String title = Transaction.run(c, tx -> accept(tx, storyId));
            page.raw("<p>The story '").text(title).raw("' has been successfully moved from the submissions to the "
                    + "stories table.</p>\n<p>").link("Review more stories", "ReviewStories").raw("</p>\n");
        }
    }

    private static String accept(Connection tx, int storyId) throws SQLException, NotFoundException {
        String title;
        String body;
        Object date;
        Object writer;
        int category;
        try (PreparedStatement select = tx.prepareStatement("SELECT title, body, date, writer, category"
                + " FROM submissions WHERE id = ?")) {
            select.setInt(1, storyId);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    throw new NotFoundException("the submitted story " + storyId + " does not exist any more.");
                }
                title = rs.getString(1);
                body = rs.getString(2);
                date = rs.getObject(3, java.time.LocalDateTime.class);
                int w = rs.getInt(4);
                writer = rs.wasNull() ? 0 : w;
                category = rs.getInt(5);
            }
        }
        try (PreparedStatement delete = tx.prepareStatement("DELETE FROM submissions WHERE id = ?")) {
            delete.setInt(1, storyId);
            if (delete.executeUpdate() != 1) {
                throw new NotFoundException("the submitted story " + storyId + " was just reviewed by someone else.");
            }
        }
        try (PreparedStatement insert = tx.prepareStatement("INSERT INTO stories (title, body, date, writer,"
                + " category) VALUES (?, ?, ?, ?, ?)")) {
            insert.setString(1, title);
            insert.setString(2, body);
            insert.setObject(3, date);
            insert.setObject(4, writer);
            insert.setInt(5, category);
            insert.executeUpdate();
        }
        return title;
    }
}
