package io.hybridconnector.samples;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /compute?ms=N}: a servlet that computes for N ms of its thread's CPU time, like a report, a template page, an
 * image resize or a password hash. CPU time, not wall time: on a shared core the request takes longer, as real work
 * does, and the work per request stays the same whatever the connector.
 */
@WebServlet("/compute")
public class ComputeServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long ms;
        try {
            ms = Responses.parseLong(req.getParameter("ms"), "ms", 0, 600_000);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        Responses.text(resp, "computed " + ms + " ms: " + Long.toHexString(compute(ms)));
    }

    /** A linear congruential generator run until the thread has used {@code ms} of CPU; its state, so it is kept. */
    static long compute(long ms) {
        long until = THREADS.getCurrentThreadCpuTime() + ms * 1_000_000;
        long x = 1;
        do {
            for (int i = 0; i < 10_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        } while (THREADS.getCurrentThreadCpuTime() < until);
        return x;
    }
}
