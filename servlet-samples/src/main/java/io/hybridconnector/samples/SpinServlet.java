package io.hybridconnector.samples;

import java.io.IOException;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /spin?ms=N}: a servlet that computes for N ms of wall time (N may have up to three decimals), as a page does
 * that works until a deadline or polls for a result: the CPU work it gets done shrinks when the core is shared, and
 * it answers after N ms however little of the CPU it had. Issue 38's operator test spun a JSP this way; {@link
 * ComputeServlet} computes for CPU time instead, the same work whatever the contention.
 */
@WebServlet("/spin")
public class SpinServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long nanos;
        try {
            nanos = Responses.parseMillisAsNanos(req.getParameter("ms"), "ms", 600_000);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        long state = ComputeServlet.computeFor(nanos, System::nanoTime);
        Responses.text(resp, "spun " + req.getParameter("ms") + " ms: " + Long.toHexString(state));
    }
}
