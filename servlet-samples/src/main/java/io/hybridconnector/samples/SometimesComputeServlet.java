package io.hybridconnector.samples;

import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /sometimes?percent=P&ms=N}: one path whose requests are light or heavy by chance, as a search page is when
 * only some queries miss a cache: a random P in 100 compute for N ms of CPU time ({@link ComputeServlet#compute}),
 * the others answer at once. Nothing in the request tells which it will be, so a connector cannot learn it from the
 * path or the query (issue 38: 3 in 10 computing 30 ms).
 */
@WebServlet("/sometimes")
public class SometimesComputeServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long percent;
        long nanos;
        try {
            percent = Responses.parseLong(req.getParameter("percent"), "percent", 0, 100);
            nanos = Responses.parseMillisAsNanos(req.getParameter("ms"), "ms", 600_000);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        boolean heavy = ThreadLocalRandom.current().nextInt(100) < percent;
        long state = heavy ? ComputeServlet.compute(nanos) : 0;
        Responses.text(resp, (heavy ? "computed " + req.getParameter("ms") + " ms: " : "computed nothing: ")
                + Long.toHexString(state));
    }
}
