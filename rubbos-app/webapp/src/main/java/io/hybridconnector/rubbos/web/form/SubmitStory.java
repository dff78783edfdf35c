package io.hybridconnector.rubbos.web.form;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import io.hybridconnector.rubbos.web.support.Html;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/** The form for a new story, its category chooser filled from the categories table. Any container thread. */
public class SubmitStory extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Submit a story";
    }

    @Override
    protected void render(Params params, Page page) throws SQLException {
        page.form("StoreStory")
            .raw("<p>Nickname <input type=\"text\" name=\"nickname\" size=\"20\"> Password "
                + "<input type=\"password\" name=\"password\" size=\"20\"></p>\n"
                + "<p>Title <input type=\"text\" name=\"title\" size=\"60\" maxlength=\"100\"></p>\n"
                + "<p>Category <select name=\"category\">\n");
        try (Connection c = connection();
             PreparedStatement select = c.prepareStatement("SELECT id, name FROM categories ORDER BY id");
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                page.raw("<option value=\"" + rs.getInt(1) + "\">" + Html.escape(rs.getString(2)) + "</option>\n");
            }
        }
        page.raw("</select></p>\n<p><textarea name=\"body\" rows=\"20\" cols=\"80\"></textarea></p>\n"
            + "<p><input type=\"submit\" value=\"Submit this story now!\"></p></form>\n");
    }
}
