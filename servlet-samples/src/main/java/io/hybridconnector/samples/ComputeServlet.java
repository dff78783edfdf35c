package io.hybridconnector.samples;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /compute?ms=N}: a servlet that computes for N ms of its thread's CPU time, like a report, a template page, an
 * image resize or a password hash; N may have up to three decimals ({@code 0.5}). CPU time, not wall time: on a
 * shared core the request takes longer, as real work does, and the work per request stays the same whatever the
 * connector ({@link SpinServlet} computes for wall time instead). On a virtual thread (Tomcat's
 * {@code useVirtualThreads}) the JDK measures no CPU time ({@code getCurrentThreadCpuTime()} is -1 up to JDK 25 at
 * least), so there the request computes for N ms of wall time: the same work while its carrier thread has the CPU,
 * less when other processes take it. Without that the loop never ended and wedged the carrier (bench/experiments'
 * fairness phase, nio-vt, 2026-11-25).
 */
@WebServlet("/compute")
public class ComputeServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long nanos;
        try {
            nanos = Responses.parseMillisAsNanos(req.getParameter("ms"), "ms", 600_000);
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        Responses.text(resp, "computed " + req.getParameter("ms") + " ms: " + Long.toHexString(compute(nanos)));
    }

    /**
     * Computes until the thread has used {@code nanos} of CPU (of wall time where the JDK measures no CPU time:
     * virtual threads); returns the state, so it is kept.
     */
    static long compute(long nanos) {
        boolean cpu = THREADS.getCurrentThreadCpuTime() != -1;
        return computeFor(nanos, cpu ? THREADS::getCurrentThreadCpuTime : System::nanoTime);
    }

    /**
     * A linear congruential generator run until {@code clock} has advanced {@code nanos}, looking at it every 10,000
     * steps (some 10 us); its state, so it is kept.
     */
    static long computeFor(long nanos, LongSupplier clock) {
        long until = clock.getAsLong() + nanos;
        long x = 1;
        do {
            for (int i = 0; i < 10_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        } while (clock.getAsLong() - until < 0);
        return x;
    }
}
