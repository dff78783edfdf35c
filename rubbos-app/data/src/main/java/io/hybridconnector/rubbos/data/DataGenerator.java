package io.hybridconnector.rubbos.data;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;

/**
 * Fills an empty RUBBoS schema with a deterministic data set: the same seed, scale and run date give the same rows
 * on H2 and on MariaDB. Dates are relative to the run date, so that "stories of N days ago" (OlderStories) and the
 * live/old split behave the same whenever the benchmark runs.
 * <p>
 * Ids are chosen here, not by the database: old stories take the low ids and live stories follow, in date order,
 * so a story id names one story whichever table holds it, as the original's ViewStory (live table first, then old)
 * assumes. Single thread; the connection is used in one transaction per table.
 */
public final class DataGenerator {

    /**
     * Changes whenever the same seed, scale and date would give different rows, so that a loader keeping data sets
     * between runs can tell an old one apart. 2: a story's first comment is never rated below 0.
     */
    public static final int VERSION = 2;

    private static final int MAX_TEXT = 1024;
    private static final long SECONDS_PER_DAY = 86_400;

    private final DataSpec spec;
    private final Random random;
    private final LocalDateTime now;
    private final Dictionary dictionary = Dictionary.standard();
    private final CommentThreads threads;
    private int nextCommentId = 1;
    private int nextOldCommentId = 1;

    /** What was loaded, for the log line of whoever asked. */
    public record Summary(int users, int authors, int liveStories, int oldStories, long comments, long oldComments,
                          int submissions, Duration took) {
        @Override
        public String toString() {
            return String.format("%,d users + %,d authors, %,d live stories (%,d comments), %,d old stories "
                    + "(%,d comments), %,d submissions, loaded in %.1f s", users, authors, liveStories, comments,
                    oldStories, oldComments, submissions, took.toMillis() / 1000.0);
        }
    }

    public DataGenerator(DataSpec spec, long seed, LocalDateTime now) {
        this.spec = spec;
        this.random = new Random(seed);
        this.now = now.truncatedTo(ChronoUnit.SECONDS);
        this.threads = new CommentThreads(spec);
    }

    /** Creates the schema on {@code connection} and loads every table. */
    public Summary load(Connection connection) throws SQLException {
        long start = System.nanoTime();
        Dialect dialect = Dialect.of(connection);
        dialect.createSchema(connection);
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            dialect.prepareBulkLoad(connection);
            loadCategories(connection);
            loadUsers(connection);
            long[] old = loadStories(connection, "old_stories", "old_comments", 1, spec.liveDays() + spec.oldDays(),
                    spec.liveDays());
            long[] live = loadStories(connection, "stories", "comments", 1 + spec.oldStories(), spec.liveDays(), 0);
            loadSubmissions(connection);
            connection.commit();
            for (String table : List.of("users", "stories", "old_stories", "comments", "old_comments",
                    "submissions", "moderator_log")) {
                dialect.resumeIdentity(connection, table);
            }
            connection.commit();
            return new Summary(spec.users(), spec.authors(), (int) live[0], (int) old[0], live[1], old[1],
                    spec.submissions(), Duration.ofNanos(System.nanoTime() - start));
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private void loadCategories(Connection connection) throws SQLException {
        try (BatchInsert insert = new BatchInsert(connection, "INSERT INTO categories (id, name) VALUES (?, ?)")) {
            List<String> names = Categories.names();
            for (int i = 0; i < names.size(); i++) {
                insert.row(i, names.get(i));
            }
        }
    }

    private void loadUsers(Connection connection) throws SQLException {
        try (BatchInsert insert = new BatchInsert(connection, "INSERT INTO users (id, firstname, lastname, nickname,"
                + " password, email, rating, access, creation_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            insert.row(0, "Anonymous", "Coward", "Anonymous Coward", "", "anonymous@rubbos.com", 0, 0, now);
            for (int i = 1; i <= spec.users(); i++) {
                insert.row(i, "First" + i, "Last" + i, "user" + i, "password" + i, "user" + i + "@rubbos.example",
                        random.nextInt(5), 0, secondsAgo(random.nextLong(2 * 365 * SECONDS_PER_DAY)));
            }
            for (int k = 1; k <= spec.authors(); k++) {
                insert.row(spec.authorId(k), "Author" + k, "Editor" + k, "author" + k, "password" + k,
                        "author" + k + "@rubbos.example", 10 + random.nextInt(10), 1,
                        secondsAgo(2 * 365 * SECONDS_PER_DAY));
            }
        }
        connection.commit();
    }

    /**
     * Stories written from {@code fromDaysAgo} (exclusive) up to {@code toDaysAgo} (inclusive), oldest first, each
     * with its comment thread.
     *
     * @return {stories, comments} loaded
     */
    private long[] loadStories(Connection connection, String storyTable, String commentTable, int firstId,
                               int fromDaysAgo, int toDaysAgo) throws SQLException {
        boolean old = storyTable.startsWith("old");
        int id = firstId;
        try (BatchInsert stories = new BatchInsert(connection, "INSERT INTO " + storyTable
                + " (id, title, body, date, writer, category) VALUES (?, ?, ?, ?, ?, ?)");
             BatchInsert comments = new BatchInsert(connection, "INSERT INTO " + commentTable
                     + " (id, writer, story_id, parent, childs, rating, date, subject, comment)"
                     + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int day = fromDaysAgo - 1; day >= toDaysAgo; day--) {
                long[] offsets = sortedOffsets(old ? spec.oldStoriesPerDay() : spec.storiesPerDay());
                for (long offset : offsets) {
                    LocalDateTime date = secondsAgo(day * SECONDS_PER_DAY + offset);
                    stories.row(id, title(), dictionary.text(random, 50 + random.nextInt(MAX_TEXT - 50), MAX_TEXT),
                            date, writer(), random.nextInt(Categories.names().size()));
                    writeThread(comments, id, date, old);
                    id++;
                }
            }
            connection.commit();
            return new long[] {stories.rows(), comments.rows()};
        }
    }

    /** @return {@code n} offsets into a day, in seconds before its end, largest (earliest) first */
    private long[] sortedOffsets(int n) {
        long[] offsets = new long[n];
        for (int i = 0; i < n; i++) {
            offsets[i] = random.nextLong(SECONDS_PER_DAY);
        }
        java.util.Arrays.sort(offsets);
        for (int i = 0; i < n / 2; i++) {
            long t = offsets[i];
            offsets[i] = offsets[n - 1 - i];
            offsets[n - 1 - i] = t;
        }
        return offsets;
    }

    private void writeThread(BatchInsert comments, int storyId, LocalDateTime storyDate, boolean old)
            throws SQLException {
        int n = threads.commentsFor(random);
        if (n == 0) {
            return;
        }
        int baseId = old ? nextOldCommentId : nextCommentId;
        int[] parent = new int[n];
        int[] childs = new int[n];
        for (int i = 0; i < n; i++) {
            parent[i] = threads.parentIndex(random, i);
            if (parent[i] >= 0) {
                childs[parent[i]]++;
            }
        }
        long window = Math.max(60, java.time.Duration.between(storyDate, now).getSeconds());
        long spacing = Math.max(1, Math.min(window, 3 * SECONDS_PER_DAY) / (n + 1));
        for (int i = 0; i < n; i++) {
            int rating = random.nextInt(10) < 7 ? 0 : random.nextInt(7) - 1;
            if (i == 0 && rating < 0) {
                // The first comment is top level: the story keeps a thread visible at the default filter (0), so a
                // reader of any story can go on to ViewComment, as the original's transition tables assume.
                rating = 0;
            }
            int writer = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(spec.users());
            comments.row(baseId + i, writer, storyId, parent[i] < 0 ? 0 : baseId + parent[i], childs[i], rating,
                    storyDate.plusSeconds((i + 1) * spacing), title(),
                    dictionary.text(random, random.nextInt(MAX_TEXT), MAX_TEXT));
        }
        if (old) {
            nextOldCommentId += n;
        } else {
            nextCommentId += n;
        }
    }

    private void loadSubmissions(Connection connection) throws SQLException {
        try (BatchInsert insert = new BatchInsert(connection, "INSERT INTO submissions"
                + " (id, title, body, date, writer, category) VALUES (?, ?, ?, ?, ?, ?)")) {
            for (int i = 1; i <= spec.submissions(); i++) {
                insert.row(i, title(), dictionary.text(random, 50 + random.nextInt(MAX_TEXT - 50), MAX_TEXT),
                        secondsAgo(random.nextLong(2 * SECONDS_PER_DAY)), writer(),
                        random.nextInt(Categories.names().size()));
            }
        }
    }

    /** Stories are written by authors a third of the time, by regular users otherwise. */
    private int writer() {
        return random.nextInt(3) == 0 ? spec.authorId(1 + random.nextInt(spec.authors()))
                : 1 + random.nextInt(spec.users());
    }

    private String title() {
        return dictionary.text(random, 8 + random.nextInt(60), 100).strip();
    }

    private LocalDateTime secondsAgo(long seconds) {
        return now.minusSeconds(seconds);
    }
}
