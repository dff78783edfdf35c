package io.hybridconnector.rubbos.web.read;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/** Every category, each a link to its stories. Any container thread. */
public class BrowseCategories extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Browse categories";
    }

    @Override
    protected void render(Params params, Page page) throws SQLException {
        try (Connection c = connection();
             PreparedStatement select = c.prepareStatement("SELECT id, name FROM categories ORDER BY id");
             ResultSet rs = select.executeQuery()) {
            page.raw("<ul>\n");
            while (rs.next()) {
                page.raw("<li>").link(rs.getString(2), "BrowseStoriesByCategory", "category", rs.getInt(1),
                        "categoryName", rs.getString(2)).raw("</li>\n");
            }
            page.raw("</ul>\n");
        }
    }
}
