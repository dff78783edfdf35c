package io.hybridconnector.samples;

import java.io.IOException;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** {@code /block?ms=N}: a servlet that blocks, like one waiting for a database or a remote call. */
@WebServlet("/block")
public class BlockServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long ms;
        try {
            ms = Responses.parseLong(req.getParameter("ms"), "ms", 0, 600_000);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            resp.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "interrupted");
            return;
        }
        Responses.text(resp, "slept " + ms);
    }
}
