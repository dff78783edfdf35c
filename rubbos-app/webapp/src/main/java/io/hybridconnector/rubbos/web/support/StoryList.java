package io.hybridconnector.rubbos.web.support;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;

/**
 * The one-line-per-story listing shared by the category, older-stories and search pages. The statement's first
 * four columns must be story id, title, date, writer nickname. Request thread.
 */
public final class StoryList {

    private StoryList() {
    }

    /** Runs {@code select} and appends one line per story. @return the number of stories listed */
    public static int append(Page page, PreparedStatement select) throws SQLException {
        int rows = 0;
        try (ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                if (rows++ == 0) {
                    page.raw("<ul>\n");
                }
                page.raw("<li>").link(rs.getString(2), "ViewStory", "storyId", rs.getInt(1))
                    .raw(" by ").text(rs.getString(4)).raw(" on ")
                    .text(Html.date(rs.getObject(3, LocalDateTime.class))).raw("</li>\n");
            }
        }
        if (rows > 0) {
            page.raw("</ul>\n");
        }
        return rows;
    }

    /** Binds LIMIT and OFFSET, the statement's last two placeholders starting at {@code index}. */
    public static void bindPage(PreparedStatement select, int index, int page, int pageSize) throws SQLException {
        select.setInt(index, pageSize);
        select.setLong(index + 1, (long) page * pageSize);
    }

    /** @return {@code prefix} as a LIKE pattern matching strings that start with it, wildcards escaped with '!' */
    public static String prefixPattern(String prefix) {
        return prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
    }
}
