package io.hybridconnector.rubbos.web.support;

import jakarta.servlet.http.HttpServletRequest;

/**
 * One HTML page being built in memory. The whole page is produced before anything is sent, so a parameter or
 * database problem found half-way still yields a clean 400 or error page instead of a truncated 200. Confined to
 * the request's thread.
 * <p>
 * Every page starts with the same header (navigation bar and the logo image, which a browser - and the client
 * emulator - fetches as a second request) and ends with a footer naming the servlet and its elapsed time.
 */
public final class Page {

    private final StringBuilder html = new StringBuilder(8192);
    private final String contextPath;

    public Page(HttpServletRequest request, String title) {
        this.contextPath = request.getContextPath();
        html.append("<!DOCTYPE html>\n<html><head><meta charset=\"UTF-8\"><title>RUBBoS: ").append(Html.escape(title))
            .append("</title></head>\n<body bgcolor=\"#ffffff\">\n")
            .append("<table width=\"100%\" bgcolor=\"#cccccc\"><tr>")
            .append("<td><a href=\"").append(contextPath).append("/\"><img src=\"").append(contextPath)
            .append("/RUBBoS_logo.jpg\" alt=\"RUBBoS logo\" width=\"180\" height=\"60\"></a></td>\n")
            .append(navigation("Home", "/servlet/StoriesOfTheDay"))
            .append(navigation("Browse", "/browse.html"))
            .append(navigation("Submit a story", "/servlet/SubmitStory"))
            .append(navigation("Search", "/servlet/Search"))
            .append(navigation("Register", "/register.html"))
            .append(navigation("Author", "/author.html"))
            .append("</tr></table>\n<h1>").append(Html.escape(title)).append("</h1>\n");
    }

    private String navigation(String label, String path) {
        return "<td align=\"center\"><a href=\"" + contextPath + path + "\"><b>" + label + "</b></a></td>\n";
    }

    /** Appends markup as is; the caller escapes any data it contains. */
    public Page raw(String markup) {
        html.append(markup);
        return this;
    }

    /** Appends text, escaped. */
    public Page text(String text) {
        html.append(Html.escape(text));
        return this;
    }

    /**
     * @param servlet        servlet name, e.g. {@code ViewStory}
     * @param namesAndValues parameter name, value, name, value, ...
     * @return the link's URL, escaped for an {@code href} attribute
     */
    public String href(String servlet, Object... namesAndValues) {
        StringBuilder url = new StringBuilder(64).append(contextPath).append("/servlet/").append(servlet);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            url.append(i == 0 ? "?" : "&amp;").append(namesAndValues[i]).append('=')
               .append(Html.escape(Html.url(String.valueOf(namesAndValues[i + 1]))));
        }
        return url.toString();
    }

    /** Appends {@code <a href="...">text</a>} for a servlet link. */
    public Page link(String text, String servlet, Object... namesAndValues) {
        html.append("<a href=\"").append(href(servlet, namesAndValues)).append("\">").append(Html.escape(text))
            .append("</a>");
        return this;
    }

    /** Appends a hidden form field. */
    public Page hidden(String name, Object value) {
        html.append("<input type=\"hidden\" name=\"").append(name).append("\" value=\"")
            .append(Html.escape(String.valueOf(value))).append("\">\n");
        return this;
    }

    /** Appends the start of a form posting to a servlet. */
    public Page form(String servlet) {
        html.append("<form action=\"").append(contextPath).append("/servlet/").append(servlet)
            .append("\" method=\"post\">\n");
        return this;
    }

    /**
     * Appends the "Previous page" / "Next page" links of a paginated list, with the original's link structure: a page
     * that listed something always offers the next page, even when it was the last one (the next is then an empty
     * "Sorry" page, from which the client goes back); a page past the end offers only the previous one. The client's
     * paging step (a list state following itself in the transition tables) therefore always finds a link to follow.
     *
     * @param listed whether this page listed at least one row
     */
    public Page pager(int page, boolean listed, String servlet, Object... namesAndValues) {
        html.append("<p>");
        if (page > 0) {
            link("Previous page", servlet, withPage(namesAndValues, page - 1));
            html.append(' ');
        }
        if (listed) {
            link("Next page", servlet, withPage(namesAndValues, page + 1));
        }
        html.append("</p>\n");
        return this;
    }

    private static Object[] withPage(Object[] namesAndValues, int page) {
        Object[] all = java.util.Arrays.copyOf(namesAndValues, namesAndValues.length + 2);
        all[namesAndValues.length] = "page";
        all[namesAndValues.length + 1] = page;
        return all;
    }

    /** @return the complete page, footer included */
    public String finish(String servletName, long startNanos) {
        long micros = (System.nanoTime() - startNanos) / 1000;
        html.append("\n<hr><p><small>Page generated by ").append(servletName).append(" in ")
            .append(micros / 1000).append('.').append(String.format("%03d", micros % 1000))
            .append(" ms</small></p>\n</body></html>\n");
        return html.toString();
    }
}
