package io.hybridconnector.rubbos.web.write;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.Html;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/**
 * Creates a regular user (rating 0, no author access) unless the nickname is taken, then shows what was stored.
 * Two concurrent registrations of one nickname are settled by the unique index, not by the check before the insert.
 * Any container thread.
 */
public class RegisterUser extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Register";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, SQLException {
        String firstname = params.nonEmpty("firstname", 20);
        String lastname = params.nonEmpty("lastname", 20);
        String nickname = params.nonEmpty("nickname", 20);
        String email = params.nonEmpty("email", 50);
        String password = params.nonEmpty("password", 20);
        try (Connection c = connection()) {
            if (exists(c, nickname)) {
                taken(page, nickname);
                return;
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO users (firstname, lastname, nickname,"
                    + " password, email, rating, access, creation_date) VALUES (?, ?, ?, ?, ?, 0, 0, ?)")) {
                insert.setString(1, firstname);
                insert.setString(2, lastname);
                insert.setString(3, nickname);
                insert.setString(4, password);
                insert.setString(5, email);
                insert.setObject(6, LocalDateTime.now().truncatedTo(ChronoUnit.SECONDS));
                insert.executeUpdate();
            } catch (SQLException e) {
                if (e.getSQLState() != null && e.getSQLState().startsWith("23")) {
                    taken(page, nickname);
                    return;
                }
                throw e;
            }
            appendStored(c, nickname, page);
        }
    }

    private static boolean exists(Connection c, String nickname) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT id FROM users WHERE nickname = ?")) {
            select.setString(1, nickname);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static void taken(Page page, String nickname) {
        page.raw("<p>Sorry, but the nickname ").text(nickname).raw(" is already taken; choose another one.</p>\n");
    }

    private static void appendStored(Connection c, String nickname, Page page) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT id, firstname, lastname, nickname, email, rating,"
                + " creation_date FROM users WHERE nickname = ?")) {
            select.setString(1, nickname);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                page.raw("<h2>Your registration has been processed successfully</h2>\n<p>Welcome ")
                    .text(rs.getString(4)).raw("</p>\n<ul><li>User id: ").raw(Integer.toString(rs.getInt(1)))
                    .raw("</li>\n<li>First name: ").text(rs.getString(2)).raw("</li>\n<li>Last name: ")
                    .text(rs.getString(3)).raw("</li>\n<li>Nickname: ").text(rs.getString(4))
                    .raw("</li>\n<li>Email: ").text(rs.getString(5)).raw("</li>\n<li>Rating: ")
                    .raw(Integer.toString(rs.getInt(6))).raw("</li>\n<li>Created: ")
                    .text(Html.date(rs.getObject(7, LocalDateTime.class))).raw("</li></ul>\n");
            }
        }
    }
}
