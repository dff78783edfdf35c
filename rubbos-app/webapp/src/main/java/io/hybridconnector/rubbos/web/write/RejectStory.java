package io.hybridconnector.rubbos.web.write;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.NotFoundException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/** Deletes a submitted story. Any container thread. */
public class RejectStory extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Story rejected";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, NotFoundException, SQLException {
        int storyId = params.id("storyId");
        try (Connection c = connection();
             PreparedStatement delete = c.prepareStatement("DELETE FROM submissions WHERE id = ?")) {
            delete.setInt(1, storyId);
            if (delete.executeUpdate() == 0) {
                throw new NotFoundException("the submitted story " + storyId + " does not exist any more.");
            }
        }
        page.raw("<p>The story has been successfully removed from the submissions.</p>\n<p>")
            .link("Review more stories", "ReviewStories").raw("</p>\n");
    }
}
