package io.hybridconnector.rubbos.web.read;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;

import io.hybridconnector.rubbos.web.support.Authenticator;
import io.hybridconnector.rubbos.web.support.Html;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/**
 * The ten newest submitted stories, in full, each with Accept and Reject links. Like the original it asks for no
 * credentials (the author logged in on the page before). Any container thread.
 */
public class ReviewStories extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Review submitted stories";
    }

    @Override
    protected void render(Params params, Page page) throws SQLException {
        try (Connection c = connection();
             PreparedStatement select = c.prepareStatement("SELECT s.id, s.title, s.body, s.date, u.nickname"
                     + " FROM submissions s LEFT JOIN users u ON u.id = s.writer ORDER BY s.date DESC LIMIT 10");
             ResultSet rs = select.executeQuery()) {
            int shown = 0;
            while (rs.next()) {
                shown++;
                int id = rs.getInt(1);
                page.raw("<h3>").text(rs.getString(2)).raw("</h3>\n<p><i>Submitted by ")
                    .text(rs.getString(5) == null ? Authenticator.ANONYMOUS.nickname() : rs.getString(5))
                    .raw(" on ").text(Html.date(rs.getObject(4, LocalDateTime.class))).raw("</i></p>\n<p>")
                    .text(rs.getString(3)).raw("</p>\n<p>[ ").link("Accept", "AcceptStory", "storyId", id)
                    .raw(" | ").link("Reject", "RejectStory", "storyId", id).raw(" ]</p>\n");
            }
            if (shown == 0) {
                page.raw("<p>Sorry, but there is no submitted story to review.</p>\n");
            }
        }
    }
}
