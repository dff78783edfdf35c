package io.hybridconnector.rubbos.web.form;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.CommentTable;
import io.hybridconnector.rubbos.web.support.Html;
import io.hybridconnector.rubbos.web.support.NotFoundException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/** A comment and the form to rate it (offtopic / not rated / interesting). Any container thread. */
public class ModerateComment extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Moderate a comment";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, NotFoundException, SQLException {
        int commentId = params.id("commentId");
        CommentTable table = params.commentTable();
        try (Connection c = connection();
             PreparedStatement select = c.prepareStatement("SELECT c.subject, c.comment, c.date, c.rating,"
                     + " u.nickname FROM " + table.table + " c LEFT JOIN users u ON u.id = c.writer WHERE c.id = ?")) {
            select.setInt(1, commentId);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    throw new NotFoundException("there is no comment " + commentId + ".");
                }
                page.raw("<h3>").text(rs.getString(1)).raw("</h3>\n<p><i>Posted by ").text(rs.getString(5))
                    .raw(" on ").text(Html.date(rs.getObject(3, LocalDateTime.class))).raw(" (score ")
                    .raw(Integer.toString(rs.getInt(4))).raw(")</i></p>\n<p>").text(rs.getString(2)).raw("</p>\n");
            }
        }
        page.form("StoreModeratorLog").hidden("commentId", commentId).hidden("comment_table", table.table)
            .raw("<p>Nickname <input type=\"text\" name=\"nickname\" size=\"20\"> Password "
                + "<input type=\"password\" name=\"password\" size=\"20\"></p>\n"
                + "<p>Rating <select name=\"rating\">\n<option value=\"-1\">-1: Offtopic</option>\n"
                + "<option value=\"0\" selected>0: Not rated</option>\n<option value=\"1\">1: Interesting</option>\n"
                + "</select> <input type=\"submit\" value=\"Moderate this comment now!\"></p></form>\n");
    }
}
