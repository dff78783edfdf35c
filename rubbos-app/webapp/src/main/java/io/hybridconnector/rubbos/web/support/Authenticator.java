package io.hybridconnector.rubbos.web.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Stateless authentication, as in the original: every write re-sends nickname and password, checked against the
 * users table (plain text). Unknown or empty credentials are the anonymous user, id 0. Any thread.
 */
public final class Authenticator {

    /** The anonymous user of the schema, id 0. */
    public static final User ANONYMOUS = new User(0, "Anonymous Coward", 0);

    /** @param access 0 for a regular user, anything else for an author (moderator) */
    public record User(int id, String nickname, int access) {
        public boolean isAuthor() {
            return access != 0;
        }
    }

    private Authenticator() {
    }

    public static User authenticate(Connection connection, String nickname, String password) throws SQLException {
        if (nickname == null || nickname.isEmpty() || password == null) {
            return ANONYMOUS;
        }
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT id, nickname, access FROM users WHERE nickname = ? AND password = ?")) {
            select.setString(1, nickname);
            select.setString(2, password);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? new User(rs.getInt(1), rs.getString(2), rs.getInt(3)) : ANONYMOUS;
            }
        }
    }
}
