package io.hybridconnector.rubbos.data;

/**
 * How much data to generate, derived from one scale factor. Scale 1.0 is the original's standard data set as far as
 * its facts are known: 500,000 users, 50 authors, a month of live stories and two years of old ones at about 20
 * stories a day. Comment threads do not shrink with the scale: their heavy-tailed sizes are what makes story pages
 * range from a few KB to hundreds of KB, and that shape is the point of the benchmark.
 *
 * @param users              regular users {@code user1..userN}, password {@code passwordK}
 * @param authors            authors {@code author1..authorN} with moderator access
 * @param storiesPerDay      stories written per day in the live month; it does not shrink with the scale, so
 *                           that the 85 categories keep several live stories each (an empty category is a "Sorry"
 *                           page, which sends the client back and skews the mix)
 * @param oldStoriesPerDay   stories per day in the two archived years
 * @param liveDays           days of stories kept in the live tables (the original: one month)
 * @param oldDays            days of stories kept in the old tables (the original: two years)
 * @param submissions        stories waiting for review at the start
 * @param meanCommentsShape  Lomax shape of the comments-per-story distribution (smaller = heavier tail)
 * @param meanCommentsScale  Lomax scale; the mean number of comments per story is scale / (shape - 1)
 * @param maxCommentsPerStory cap on one story's thread
 */
public record DataSpec(int users, int authors, int storiesPerDay, int oldStoriesPerDay, int liveDays, int oldDays, int submissions,
                       double meanCommentsShape, double meanCommentsScale, int maxCommentsPerStory) {

    /** The default of the quick run: loads into H2 in seconds and keeps every shape of the standard set. */
    public static final double QUICK_SCALE = 0.1;

    public static DataSpec ofScale(double scale) {
        if (!(scale > 0) || scale > 10) {
            throw new IllegalArgumentException("scale must be in (0, 10], got " + scale);
        }
        return new DataSpec(
                Math.max(100, (int) Math.round(500_000 * scale)),
                50,
                20,
                Math.max(1, (int) Math.round(20 * scale)),
                30,
                730,
                Math.max(20, (int) Math.round(200 * scale)),
                1.4, 6.0, 1500);
    }

    public int liveStories() {
        return storiesPerDay * liveDays;
    }

    public int oldStories() {
        return oldStoriesPerDay * oldDays;
    }

    /** @return the id of author number {@code k} (1-based): authors follow the regular users */
    public int authorId(int k) {
        return users + k;
    }
}
