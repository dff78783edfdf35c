package io.hybridconnector.samples;

import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /mix?heavyPercent=2&heavyKb=100&lightKb=0.1}: the papers' heavy/light mix; {@code class=heavy|light}
 * picks one deterministically (so a load generator can keep the mix exact and the classifier can see classes).
 */
@WebServlet("/mix")
public class MixServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        boolean heavy;
        int heavyBytes;
        int lightBytes;
        try {
            heavyBytes = RandomBody.parseKb(valueOr(req.getParameter("heavyKb"), "100"));
            lightBytes = RandomBody.parseKb(valueOr(req.getParameter("lightKb"), "0.1"));
            String kind = req.getParameter("class");
            if (kind == null) {
                long percent = Responses.parseLong(valueOr(req.getParameter("heavyPercent"), "2"), "heavyPercent",
                        0, 100);
                heavy = ThreadLocalRandom.current().nextInt(100) < percent;
            } else if (kind.equals("heavy") || kind.equals("light")) {
                heavy = kind.equals("heavy");
            } else {
                throw new IllegalArgumentException("class must be heavy or light");
            }
        } catch (IllegalArgumentException e) {
            Responses.badRequest(resp, e.getMessage());
            return;
        }
        resp.setHeader("X-Class", heavy ? "heavy" : "light");
        Responses.bytes(resp, RandomBody.generate(heavy ? heavyBytes : lightBytes));
    }

    private static String valueOr(String value, String fallback) {
        return value == null ? fallback : value;
    }
}
