package io.hybridconnector.rubbos.web.support;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

import jakarta.servlet.ServletException;
import jakarta.servlet.UnavailableException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * What every interaction shares: the container's DataSource, GET and POST handled alike (the client sends
 * everything as GET, a browser posts forms), and the mapping of failures to pages - a bad parameter is a 400 that
 * names it, a missing row a 404 "Sorry" page, a database failure a 500 "ERROR" page. No stack trace ever reaches
 * the client; database failures are logged.
 * <p>
 * Stateless after {@link #init()}: any container thread, many at once.
 */
public abstract class RubbosServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** The JNDI name declared in web.xml and bound by META-INF/context.xml. */
    public static final String DATA_SOURCE = "java:comp/env/jdbc/rubbos";

    private transient DataSource dataSource;

    @Override
    public void init() throws ServletException {
        try {
            dataSource = (DataSource) new InitialContext().lookup(DATA_SOURCE);
        } catch (NamingException | ClassCastException e) {
            throw new UnavailableException("RUBBoS needs a javax.sql.DataSource at " + DATA_SOURCE
                    + " (see META-INF/context.xml): " + e);
        }
    }

    /** @return the page title */
    protected abstract String title();

    /**
     * Builds the page. Parameters are validated before the database is touched.
     */
    protected abstract void render(Params params, Page page)
            throws BadParameterException, NotFoundException, SQLException;

    protected final Connection connection() throws SQLException {
        return dataSource.getConnection();
    }

    @Override
    protected final void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long start = System.nanoTime();
        String name = getClass().getSimpleName();
        Page page = new Page(request, title());
        int status = HttpServletResponse.SC_OK;
        try {
            render(new Params(request), page);
        } catch (BadParameterException e) {
            status = HttpServletResponse.SC_BAD_REQUEST;
            page = errorPage(request, "Invalid request", "Invalid request: parameter '" + e.parameter() + "' "
                    + e.getMessage() + ".");
        } catch (NotFoundException e) {
            status = HttpServletResponse.SC_NOT_FOUND;
            page = errorPage(request, "Not found", "Sorry, " + e.getMessage());
        } catch (SQLException | RuntimeException e) {
            log(name + " failed for " + request.getQueryString(), e);
            status = HttpServletResponse.SC_INTERNAL_SERVER_ERROR;
            page = errorPage(request, "Server error", "ERROR: " + name + " could not complete (the server log has "
                    + "the details).");
        }
        response.setStatus(status);
        response.setContentType("text/html;charset=UTF-8");
        response.getWriter().write(page.finish(name, start));
    }

    @Override
    protected final void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        doGet(request, response);
    }

    private static Page errorPage(HttpServletRequest request, String title, String message) {
        return new Page(request, title).raw("<p>").text(message).raw("</p>\n");
    }
}
