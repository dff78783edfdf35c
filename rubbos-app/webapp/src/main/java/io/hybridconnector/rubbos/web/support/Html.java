package io.hybridconnector.rubbos.web.support;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/** Escaping for text and URLs in generated pages. Stateless; any thread. */
public final class Html {

    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private Html() {
    }

    /** @return {@code text} safe inside element content and attribute values */
    public static String escape(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String replacement = switch (c) {
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '&' -> "&amp;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                default -> null;
            };
            if (replacement != null && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (out != null) {
                if (replacement != null) {
                    out.append(replacement);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? text : out.toString();
    }

    /** @return {@code value} encoded for a query string */
    public static String url(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    public static String date(LocalDateTime date) {
        return date == null ? "" : DATE.format(date);
    }
}
