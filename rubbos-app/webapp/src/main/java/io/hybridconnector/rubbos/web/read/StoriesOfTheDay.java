package io.hybridconnector.rubbos.web.read;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;

import io.hybridconnector.rubbos.web.support.Html;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/** The home page: the ten newest stories, bodies cut to 512 characters. Any container thread. */
public class StoriesOfTheDay extends RubbosServlet {

    private static final long serialVersionUID = 1L;
    private static final int STORIES = 10;
    private static final int EXCERPT = 512;

    @Override
    protected String title() {
        return "Stories of the day";
    }

    @Override
    protected void render(Params params, Page page) throws SQLException {
        try (Connection c = connection();
             PreparedStatement select = c.prepareStatement("SELECT s.id, s.title, s.body, s.date, u.nickname"
                     + " FROM stories s JOIN users u ON u.id = s.writer ORDER BY s.date DESC LIMIT ?")) {
            select.setInt(1, STORIES);
            try (ResultSet rs = select.executeQuery()) {
                int shown = 0;
                while (rs.next()) {
                    shown++;
                    String body = rs.getString(3);
                    page.raw("<h3>").link(rs.getString(2), "ViewStory", "storyId", rs.getInt(1)).raw("</h3>\n")
                        .raw("<p><i>Posted by ").text(rs.getString(5)).raw(" on ")
                        .text(Html.date(rs.getObject(4, LocalDateTime.class))).raw("</i></p>\n<p>")
                        .text(body.length() > EXCERPT ? body.substring(0, EXCERPT) + "..." : body).raw("</p>\n");
                }
                if (shown == 0) {
                    page.raw("<p>Sorry, but there is no story available today.</p>\n");
                }
            }
        }
    }
}
