package io.hybridconnector.rubbos.client.session;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.Random;

import io.hybridconnector.rubbos.client.workload.State;
import io.hybridconnector.rubbos.data.Dictionary;

/**
 * Turns "the user now goes to state X" into a URL, the way the original client does: by following a link found
 * on the page just received (a story, a comment, a category, a next/previous page), by filling in the form that
 * page holds (hidden fields, a category option), or by typing fresh input (a search word, a date, a new user).
 * Returns null when the page offers no way to get there; the session then goes back. Confined to the user's
 * thread (it holds that user's {@link Random}).
 */
public final class RequestFactory {

    /** Stories per page the client asks for, as in the original (the server's default is 25). */
    public static final int PAGE_SIZE = 20;

    private final String base;
    private final Random random;
    private final int databaseUsers;
    private final int oldestYear;
    private final int oldestMonth;
    private final Dictionary dictionary = Dictionary.standard();

    /**
     * @param base          the web application's context path, e.g. {@code /rubbos}
     * @param databaseUsers the number of regular users in the database ({@code user1..userN})
     */
    public RequestFactory(String base, Random random, int databaseUsers) {
        this.base = base;
        this.random = random;
        this.databaseUsers = databaseUsers;
        LocalDate twoYearsAgo = LocalDate.now().minusYears(2);
        this.oldestYear = twoYearsAgo.getYear();
        this.oldestMonth = twoYearsAgo.getMonthValue();
    }

    /**
     * @param target  the state to request
     * @param current the state whose page is {@code page}
     * @param page    the HTML of the last page received
     */
    public String url(State target, State current, String page, Identity who) {
        String s = base + "/servlet/";
        return switch (target) {
            case StoriesOfTheDay -> s + "StoriesOfTheDay";
            case Register -> base + "/register.html";
            case RegisterUser -> registerUser(s);
            case Browse -> base + "/browse.html";
            case BrowseCategories -> s + "BrowseCategories";
            case BrowseStoriesInCategory -> sameListNextPage(target, current, page, "BrowseStoriesByCategory?",
                    () -> withPaging(PageScraper.randomLink(page, "BrowseStoriesByCategory?category=", random)));
            case OlderStories -> sameListNextPage(target, current, page, "OlderStories?", () -> olderStories(s));
            case ViewStory -> PageScraper.randomLink(page, "ViewStory?storyId=", random);
            case PostComment -> PageScraper.randomLink(page, "PostComment?", random);
            case StoreComment -> storeComment(s, page, who);
            case ViewComment -> PageScraper.randomLink(page, "ViewComment?commentId=", random);
            case ModerateComment -> PageScraper.randomLink(page, "ModerateComment?", random);
            case StoreModerateLog -> storeModerateLog(s, page, who);
            case SubmitStory -> s + "SubmitStory";
            case StoreStory -> storeStory(s, page, who);
            case Search -> s + "Search";
            case SearchInStories -> sameListNextPage(target, current, page, "Search?",
                    () -> search(s, 0, dictionary.randomWord(random)));
            case SearchInComments -> sameListNextPage(target, current, page, "Search?",
                    () -> search(s, 1, dictionary.randomWord(random)));
            case SearchInUsers -> sameListNextPage(target, current, page, "Search?",
                    () -> search(s, 2, "user" + (1 + random.nextInt(databaseUsers))));
            case AuthorLogin -> base + "/author.html";
            case AuthorTasks -> s + "Author?nickname=" + enc(who.nickname()) + "&password=" + enc(who.password());
            case ReviewStories -> s + "ReviewStories";
            case AcceptStory -> PageScraper.randomLink(page, "AcceptStory?storyId=", random);
            case RejectStory -> PageScraper.randomLink(page, "RejectStory?storyId=", random);
            case BACK, END -> throw new IllegalArgumentException(target + " is not a request");
        };
    }

    /**
     * Staying on a paginated list: follow its previous or next link (chosen evenly when both exist), keeping the
     * category, date or search word; otherwise start a new list.
     */
    private String sameListNextPage(State target, State current, String page, String servlet,
                                    java.util.function.Supplier<String> fresh) {
        if (target == current) {
            List<String> pages = PageScraper.links(page, servlet);
            pages.removeIf(link -> !link.contains("page="));
            if (!pages.isEmpty()) {
                return pages.get(random.nextInt(pages.size()));
            }
        }
        return fresh.get();
    }

    private String withPaging(String link) {
        return link == null ? null : link + "&page=0&nbOfStories=" + PAGE_SIZE;
    }

    /**
     * Mostly a date one to seven days back (1 day 20%, 2 to 6 days 10% each, 7 days 26%), sometimes (4%) any day
     * of the oldest three years, impossible dates included. Days are counted back on the calendar (the original's
     * field roll never crossed a month boundary).
     */
    private String olderStories(String s) {
        int r = random.nextInt(100);
        int day;
        int month;
        int year;
        if (r < 4) {
            day = 1 + random.nextInt(31);
            month = 1 + random.nextInt(12);
            year = oldestYear + random.nextInt(3);
            if (year == oldestYear && month < oldestMonth) {
                month = oldestMonth;
            }
        } else {
            int daysAgo = r < 24 ? 1 : r < 74 ? 2 + (r - 24) / 10 : 7;
            LocalDate date = LocalDate.now().minusDays(daysAgo);
            day = date.getDayOfMonth();
            month = date.getMonthValue();
            year = date.getYear();
        }
        return s + "OlderStories?day=" + day + "&month=" + month + "&year=" + year + "&page=0&nbOfStories="
                + PAGE_SIZE;
    }

    private String search(String s, int type, String word) {
        return s + "Search?type=" + type + "&search=" + enc(word) + "&page=0&nbOfStories=" + PAGE_SIZE;
    }

    private String registerUser(String s) {
        int n = databaseUsers + 1 + random.nextInt(1_000_000);
        return s + "RegisterUser?firstname=Great" + n + "&lastname=User" + n + "&nickname=user" + n
                + "&email=" + enc("Great" + n + ".User" + n + "@rubbos.com") + "&password=password" + n;
    }

    private String storeComment(String s, String page, Identity who) {
        String storyId = PageScraper.hidden(page, "storyId");
        String parent = PageScraper.hidden(page, "parent");
        String table = PageScraper.hidden(page, "comment_table");
        if (storyId == null || parent == null || table == null) {
            return null;
        }
        return s + "StoreComment?comment_table=" + enc(table) + "&nickname=" + enc(who.nickname()) + "&password="
                + enc(who.password()) + "&storyId=" + enc(storyId) + "&parent=" + enc(parent) + "&subject="
                + enc(text(100)) + "&body=" + enc(text(1024));
    }

    /** Moderation votes -1, 0 or +1 evenly (the original never sent +1). */
    private String storeModerateLog(String s, String page, Identity who) {
        String commentId = PageScraper.hidden(page, "commentId");
        String table = PageScraper.hidden(page, "comment_table");
        if (commentId == null || table == null) {
            return null;
        }
        return s + "StoreModeratorLog?comment_table=" + enc(table) + "&nickname=" + enc(who.nickname())
                + "&password=" + enc(who.password()) + "&commentId=" + enc(commentId) + "&rating="
                + (random.nextInt(3) - 1);
    }

    private String storeStory(String s, String page, Identity who) {
        List<String> categories = PageScraper.options(page);
        if (categories.isEmpty()) {
            return null;
        }
        return s + "StoreStory?nickname=" + enc(who.nickname()) + "&password=" + enc(who.password()) + "&title="
                + enc(text(100)) + "&body=" + enc(text(1024)) + "&category="
                + enc(categories.get(random.nextInt(categories.size())));
    }

    /** Text of a length drawn uniformly below {@code max}, cut to stay below it. */
    private String text(int max) {
        return dictionary.text(random, random.nextInt(max), max - 1).strip();
    }

    private static String enc(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
