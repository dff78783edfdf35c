package io.hybridconnector.rubbos.web.read;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.CommentTable;
import io.hybridconnector.rubbos.web.support.Html;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;
import io.hybridconnector.rubbos.web.support.StoryList;

/**
 * Four interactions behind one URL: without a {@code type}, the search form; type 0 searches story titles, type 1
 * comment subjects, type 2 authors' nicknames - each a prefix match, newest first, in the live tables and, when
 * they have nothing, in the archive. Comment matches are listed one per comment (the original grouped them by
 * story with a non-standard GROUP BY; a listing per comment keeps the query portable). Any container thread.
 */
public class Search extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    private static final String[] TYPES = {"Stories", "Comments", "Authors"};

    @Override
    protected String title() {
        return "Search";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, SQLException {
        if (!params.has("type") && !params.has("search")) {
            appendForm(page, "", 0, params.pageSize());
            return;
        }
        int type = params.integer("type", 0, 2);
        String search = params.text("search", 100);
        int pageNo = params.page();
        int size = params.pageSize();
        appendForm(page, search, type, size);
        page.raw("<h2>Results for ").text(TYPES[type]).raw(" starting with '").text(search).raw("'</h2>\n");
        String pattern = StoryList.prefixPattern(search);
        int shown;
        try (Connection c = connection()) {
            shown = switch (type) {
                case 0 -> stories(c, "stories", "s.title", pattern, pageNo, size, page);
                case 1 -> comments(c, CommentTable.COMMENTS, pattern, pageNo, size, page);
                default -> stories(c, "stories", "u.nickname", pattern, pageNo, size, page);
            };
            if (shown == 0) {
                shown = switch (type) {
                    case 0 -> stories(c, "old_stories", "s.title", pattern, pageNo, size, page);
                    case 1 -> comments(c, CommentTable.OLD_COMMENTS, pattern, pageNo, size, page);
                    default -> stories(c, "old_stories", "u.nickname", pattern, pageNo, size, page);
                };
            }
        }
        if (shown == 0) {
            page.raw("<p>Sorry, but no match was found.</p>\n");
        }
        page.pager(pageNo, shown > 0, "Search", "type", type, "search", search, "nbOfStories", size);
    }

    private static int stories(Connection c, String table, String column, String pattern, int pageNo, int size,
                               Page page) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT s.id, s.title, s.date, u.nickname FROM " + table
                + " s JOIN users u ON u.id = s.writer WHERE " + column + " LIKE ? ESCAPE '!'"
                + " ORDER BY s.date DESC LIMIT ? OFFSET ?")) {
            select.setString(1, pattern);
            StoryList.bindPage(select, 2, pageNo, size);
            return StoryList.append(page, select);
        }
    }

    private static int comments(Connection c, CommentTable table, String pattern, int pageNo, int size, Page page)
            throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT c.id, c.story_id, c.subject, c.date, u.nickname"
                + " FROM " + table.table + " c LEFT JOIN users u ON u.id = c.writer WHERE c.subject LIKE ? ESCAPE '!'"
                + " ORDER BY c.date DESC LIMIT ? OFFSET ?")) {
            select.setString(1, pattern);
            StoryList.bindPage(select, 2, pageNo, size);
            int rows = 0;
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    if (rows++ == 0) {
                        page.raw("<ul>\n");
                    }
                    page.raw("<li>").link(rs.getString(3), "ViewComment", "commentId", rs.getInt(1), "filter", 0,
                            "display", 1, "storyId", rs.getInt(2), "comment_table", table.table)
                        .raw(" by ").text(rs.getString(5)).raw(" on ")
                        .text(Html.date(rs.getObject(4, LocalDateTime.class))).raw("</li>\n");
                }
            }
            if (rows > 0) {
                page.raw("</ul>\n");
            }
            return rows;
        }
    }

    private static void appendForm(Page page, String search, int type, int size) {
        page.form("Search").raw("<input type=\"text\" name=\"search\" size=\"40\" value=\"").text(search)
            .raw("\"> <select name=\"type\">\n");
        for (int i = 0; i < TYPES.length; i++) {
            page.raw("<option value=\"" + i + "\"" + (i == type ? " selected" : "") + ">" + TYPES[i] + "</option>\n");
        }
        page.raw("</select>\n").hidden("nbOfStories", size).raw("<input type=\"submit\" value=\"Search\"></form>\n");
    }
}
