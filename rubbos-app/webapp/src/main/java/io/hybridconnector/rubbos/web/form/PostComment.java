package io.hybridconnector.rubbos.web.form;

import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.CommentTable;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/** The form for a new comment on a story or a reply to a comment; no database access. Any container thread. */
public class PostComment extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Post a comment";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException {
        int storyId = params.id("storyId");
        int parent = params.id("parent");
        CommentTable table = params.commentTable();
        page.form("StoreComment").hidden("storyId", storyId).hidden("parent", parent)
            .hidden("comment_table", table.table)
            .raw("<p>Nickname <input type=\"text\" name=\"nickname\" size=\"20\"> Password "
                + "<input type=\"password\" name=\"password\" size=\"20\"></p>\n"
                + "<p>Subject <input type=\"text\" name=\"subject\" size=\"60\" maxlength=\"100\"></p>\n"
                + "<p><textarea name=\"body\" rows=\"20\" cols=\"80\"></textarea></p>\n"
                + "<p><input type=\"submit\" value=\"Post your comment now!\"></p></form>\n");
    }
}
