package io.hybridconnector.samples;

import jakarta.servlet.annotation.WebServlet;

/**
 * {@code /fixed?kb=0.1|10|100}: {@code /size}'s request and response, with a random string of that size made once
 * and written again for every request.
 *
 * <p>Not the papers' workload ({@code /size} makes a fresh body per request, and at 100 KB that generation is most
 * of a request's CPU). It is the diagnostic beside it: with the body's cost gone, two connectors' CPU per request
 * differs only by what the connectors do, and not by how each JVM happened to compile the servlet's loop.
 */
@WebServlet("/fixed")
public class FixedSizeServlet extends SizeServlet {

    private static final long serialVersionUID = 1L;

    private final transient FixedBodies bodies = new FixedBodies();

    @Override
    protected byte[] body(int bytes) {
        return bodies.of(bytes);
    }
}
