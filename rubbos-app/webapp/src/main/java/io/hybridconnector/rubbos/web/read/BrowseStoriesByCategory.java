package io.hybridconnector.rubbos.web.read;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;
import io.hybridconnector.rubbos.web.support.StoryList;

/** One page of a category's live stories, newest first. Any container thread. */
public class BrowseStoriesByCategory extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Stories in a category";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, SQLException {
        int category = params.id("category");
        String name = params.optionalText("categoryName", "category " + category, 50);
        int pageNo = params.page();
        int size = params.pageSize();
        page.raw("<h2>").text(name).raw("</h2>\n");
        try (Connection c = connection();
             PreparedStatement select = c.prepareStatement("SELECT s.id, s.title, s.date, u.nickname FROM stories s"
                     + " JOIN users u ON u.id = s.writer WHERE s.category = ? ORDER BY s.date DESC LIMIT ? OFFSET ?")) {
            select.setInt(1, category);
            StoryList.bindPage(select, 2, pageNo, size);
            int shown = StoryList.append(page, select);
            if (shown == 0) {
                page.raw(pageNo == 0 ? "<p>Sorry, but there is no story available in this category.</p>\n"
                        : "<p>Sorry, but there are no more stories in this category.</p>\n");
            }
            page.pager(pageNo, shown > 0, "BrowseStoriesByCategory", "category", category, "categoryName", name,
                    "nbOfStories", size);
        }
    }
}
