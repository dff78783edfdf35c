package io.hybridconnector.rubbos.client.session;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what a browser user would click or fill in from the HTML of the page just received: links to a given
 * servlet, hidden form fields, the options of a selection, embedded images. Stateless; any thread.
 */
public final class PageScraper {

    private static final Pattern HREF = Pattern.compile("href=\"([^\"]+)\"");
    private static final Pattern OPTION = Pattern.compile("<option value=\"([^\"]*)\"");

    private PageScraper() {
    }

    /** @return every link whose URL contains {@code servletAndQuery}, e.g. {@code "ViewStory?storyId="} */
    public static List<String> links(String html, String servletAndQuery) {
        List<String> links = new ArrayList<>();
        Matcher m = HREF.matcher(html);
        while (m.find()) {
            String href = m.group(1);
            if (href.contains(servletAndQuery)) {
                links.add(unescape(href));
            }
        }
        return links;
    }

    /** @return one of the matching links, chosen uniformly, or null when the page has none */
    public static String randomLink(String html, String servletAndQuery, Random random) {
        List<String> links = links(html, servletAndQuery);
        return links.isEmpty() ? null : links.get(random.nextInt(links.size()));
    }

    /** @return the value of the hidden field {@code name}, or null */
    public static String hidden(String html, String name) {
        String marker = "name=\"" + name + "\" value=\"";
        int at = html.indexOf(marker);
        if (at < 0) {
            return null;
        }
        int start = at + marker.length();
        int end = html.indexOf('"', start);
        return end < 0 ? null : unescape(html.substring(start, end));
    }

    /** @return the values of all {@code <option>}s on the page */
    public static List<String> options(String html) {
        List<String> values = new ArrayList<>();
        Matcher m = OPTION.matcher(html);
        while (m.find()) {
            values.add(unescape(m.group(1)));
        }
        return values;
    }

    /**
     * @return the sources of the page's images. A plain scan rather than a regular expression: this runs on every
     *         page, some of which are hundreds of KB, and the client's CPU must not become the bottleneck.
     */
    public static List<String> images(String html) {
        List<String> sources = new ArrayList<>(1);
        for (int at = html.indexOf("<img "); at >= 0; at = html.indexOf("<img ", at + 5)) {
            int end = html.indexOf('>', at);
            int src = html.indexOf("src=\"", at);
            if (end > 0 && src > 0 && src < end) {
                int close = html.indexOf('"', src + 5);
                if (close > 0 && close < end) {
                    sources.add(unescape(html.substring(src + 5, close)));
                }
            }
        }
        return sources;
    }

    static String unescape(String s) {
        return s.indexOf('&') < 0 ? s : s.replace("&amp;", "&").replace("&quot;", "\"").replace("&#39;", "'")
                .replace("&lt;", "<").replace("&gt;", ">");
    }
}
