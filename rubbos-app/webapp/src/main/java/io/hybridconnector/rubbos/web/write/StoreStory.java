package io.hybridconnector.rubbos.web.write;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;

import io.hybridconnector.rubbos.web.support.Authenticator;
import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.NotFoundException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/**
 * Stores a story: an author's goes straight to the live stories, anyone else's (anonymous included) waits in the
 * submissions table for review. Any container thread.
 */
public class StoreStory extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Story stored";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, NotFoundException, SQLException {
        String nickname = params.optionalText("nickname", "", 20);
        String password = params.optionalText("password", "", 20);
        String title = params.text("title", 100);
        String body = params.text("body", 65_535);
        int category = params.id("category");
        try (Connection c = connection()) {
            if (!categoryExists(c, category)) {
                throw new NotFoundException("there is no category " + category + ".");
            }
            Authenticator.User user = Authenticator.authenticate(c, nickname, password);
            String table = user.isAuthor() ? "stories" : "submissions";
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table
                    + " (title, body, date, writer, category) VALUES (?, ?, ?, ?, ?)")) {
                insert.setString(1, title);
                insert.setString(2, body);
                insert.setObject(3, LocalDateTime.now().truncatedTo(ChronoUnit.SECONDS));
                insert.setInt(4, user.id());
                insert.setInt(5, category);
                insert.executeUpdate();
            }
            page.raw("<p>Your story has been successfully stored in the ").text(table)
                .raw(" table, written by ").text(user.nickname()).raw(".</p>\n");
        }
    }

    private static boolean categoryExists(Connection c, int category) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT 1 FROM categories WHERE id = ?")) {
            select.setInt(1, category);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next();
            }
        }
    }
}
