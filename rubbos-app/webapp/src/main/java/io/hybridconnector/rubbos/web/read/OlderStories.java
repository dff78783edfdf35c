package io.hybridconnector.rubbos.web.read;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.LocalDate;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;
import io.hybridconnector.rubbos.web.support.StoryList;

/**
 * A date chooser and, once a date is chosen, the stories of that day: from the live table, or from the archive if
 * the live table has none. A date that is in range but not in the calendar (31 February, which the client does
 * send) finds nothing, as in the original; only a value out of range is a bad request. Any container thread.
 */
public class OlderStories extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Older stories";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, SQLException {
        boolean chosen = params.has("day") || params.has("month") || params.has("year");
        int day = chosen ? params.integer("day", 1, 31) : 0;
        int month = chosen ? params.integer("month", 1, 12) : 0;
        int year = chosen ? params.integer("year", 1970, 2100) : 0;
        int pageNo = params.page();
        int size = params.pageSize();
        appendChooser(page, day, month, year, size);
        if (!chosen) {
            return;
        }
        LocalDate date;
        try {
            date = LocalDate.of(year, month, day);
        } catch (DateTimeException e) {
            page.raw("<p>Sorry, but there are no stories on that date.</p>\n");
            return;
        }
        int shown;
        try (Connection c = connection()) {
            shown = list(c, "stories", date, pageNo, size, page);
            if (shown == 0) {
                shown = list(c, "old_stories", date, pageNo, size, page);
            }
        }
        if (shown == 0) {
            page.raw("<p>Sorry, but there are no stories available for this date.</p>\n");
        }
        page.pager(pageNo, shown > 0, "OlderStories", "day", day, "month", month, "year", year,
                "nbOfStories", size);
    }

    private static int list(Connection c, String table, LocalDate date, int pageNo, int size, Page page)
            throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT s.id, s.title, s.date, u.nickname FROM " + table
                + " s JOIN users u ON u.id = s.writer WHERE s.date >= ? AND s.date < ? ORDER BY s.date DESC"
                + " LIMIT ? OFFSET ?")) {
            select.setObject(1, date.atStartOfDay());
            select.setObject(2, date.plusDays(1).atStartOfDay());
            StoryList.bindPage(select, 3, pageNo, size);
            return StoryList.append(page, select);
        }
    }

    private static void appendChooser(Page page, int day, int month, int year, int size) {
        page.form("OlderStories").raw("Day <select name=\"day\">\n");
        options(page, 1, 31, day);
        page.raw("</select> Month <select name=\"month\">\n");
        options(page, 1, 12, month);
        page.raw("</select> Year <select name=\"year\">\n");
        int thisYear = LocalDate.now().getYear();
        options(page, thisYear - 5, thisYear, year == 0 ? thisYear : year);
        page.raw("</select>\n").hidden("nbOfStories", size)
            .raw("<input type=\"submit\" value=\"Retrieve stories from this date\"></form>\n");
    }

    private static void options(Page page, int from, int to, int selected) {
        for (int i = from; i <= to; i++) {
            page.raw("<option value=\"" + i + "\"" + (i == selected ? " selected" : "") + ">" + i + "</option>\n");
        }
    }
}
