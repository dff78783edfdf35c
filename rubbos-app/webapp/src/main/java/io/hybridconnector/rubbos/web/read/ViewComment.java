package io.hybridconnector.rubbos.web.read;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.CommentTable;
import io.hybridconnector.rubbos.web.support.CommentTree;
import io.hybridconnector.rubbos.web.support.NotFoundException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/**
 * A sub-thread of a story's discussion: the selected comment and what is below it (the 2005 behaviour; version
 * 1.2.2 ignored the selection and re-listed the whole story), or, for comment id 0, all top-level threads. The
 * rating filter hides comments below it; the display mode chooses how much of each thread is shown.
 * Any container thread.
 */
public class ViewComment extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "View comments";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, NotFoundException, SQLException {
        int commentId = params.id("commentId");
        int filter = params.optionalInteger("filter", 0, -1, 5);
        int display = params.optionalInteger("display", 1, 0, 2);
        int storyId = params.id("storyId");
        CommentTable table = params.commentTable();
        try (Connection c = connection()) {
            CommentTree tree = CommentTree.load(c, table, storyId);
            List<CommentTree.Comment> roots;
            if (commentId == 0) {
                roots = tree.childrenOf(0);
            } else {
                CommentTree.Comment selected = tree.get(commentId);
                if (selected == null) {
                    throw new NotFoundException("there is no comment " + commentId + " on story " + storyId + ".");
                }
                roots = List.of(selected);
            }
            page.raw("<p>").link("Back to the story", "ViewStory", "storyId", storyId).raw("</p>\n");
            tree.appendFilterForm(page, commentId, filter, display);
            if (roots.isEmpty()) {
                page.raw("<p>Sorry, but there are no comments on this story yet.</p>\n");
            }
            tree.append(page, roots, filter, display);
        }
    }
}
