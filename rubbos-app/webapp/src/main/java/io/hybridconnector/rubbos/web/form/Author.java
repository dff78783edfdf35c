package io.hybridconnector.rubbos.web.form;

import java.sql.Connection;
import java.sql.SQLException;

import io.hybridconnector.rubbos.web.support.Authenticator;
import io.hybridconnector.rubbos.web.support.BadParameterException;
import io.hybridconnector.rubbos.web.support.Page;
import io.hybridconnector.rubbos.web.support.Params;
import io.hybridconnector.rubbos.web.support.RubbosServlet;

/** An author's task page after login: the link to the review queue, or a refusal for non-authors. Any thread. */
public class Author extends RubbosServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected String title() {
        return "Author tasks";
    }

    @Override
    protected void render(Params params, Page page) throws BadParameterException, SQLException {
        String nickname = params.text("nickname", 20);
        String password = params.text("password", 20);
        Authenticator.User user;
        try (Connection c = connection()) {
            user = Authenticator.authenticate(c, nickname, password);
        }
        if (!user.isAuthor()) {
            page.raw("<p>Sorry, but this feature is only accessible by users with an author access.</p>\n");
            return;
        }
        page.raw("<p>Welcome ").text(user.nickname()).raw(".</p>\n<p>")
            .link("Review submitted stories", "ReviewStories").raw("</p>\n");
    }
}
