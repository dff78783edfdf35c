package io.hybridconnector.samples;

import java.io.IOException;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /fixed?kb=0.1|10|100}: a random string of that size made once and written again for every request.
 *
 * <p>Not the papers' workload ({@code /size} makes a fresh body per request, and at 100 KB that generation is most
 * of a request's CPU). It is the diagnostic beside it: with the body's cost gone, two connectors' CPU per request
 * differs only by what the connectors do, and not by how each JVM happened to compile the servlet's loop.
 */
@WebServlet("/fixed")
public class FixedSizeServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient FixedBodies bodies = new FixedBodies();

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        int bytes;
        try {
            bytes = RandomBody.parseKb(req.getParameter("kb"));
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        Responses.bytes(resp, bodies.of(bytes));
    }
}
