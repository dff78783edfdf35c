package io.hybridconnector.rubbos.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;

import org.junit.jupiter.api.Test;

/** The generator on H2: deterministic, dated relative to the run, shaped like the original data set. */
class DataGeneratorTest {

    private static final LocalDateTime NOW = LocalDateTime.of(2025, 3, 14, 12, 0);

    @Test
    void sameSeedSameRows() throws Exception {
        assertEquals(fingerprint("a"), fingerprint("b"));
    }

    @Test
    void shapeOfTheDataSet() throws Exception {
        DataSpec spec = DataSpec.ofScale(0.02);
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:shape;DB_CLOSE_DELAY=-1")) {
            DataGenerator.Summary summary = new DataGenerator(spec, 7, NOW).load(c);
            System.out.println(summary);
            assertEquals(85, count(c, "SELECT COUNT(*) FROM categories"));
            assertEquals(1 + spec.users() + spec.authors(), count(c, "SELECT COUNT(*) FROM users"));
            assertEquals(1, count(c, "SELECT COUNT(*) FROM users WHERE nickname = 'user1' AND password = 'password1'"));
            assertEquals(spec.authors(), count(c, "SELECT COUNT(*) FROM users WHERE access <> 0"));
            // Live stories are the last 30 days, old ones the two years before.
            assertEquals(0, count(c, "SELECT COUNT(*) FROM stories WHERE date < TIMESTAMP '2025-02-12 12:00:00'"));
            assertEquals(0, count(c, "SELECT COUNT(*) FROM old_stories WHERE date > TIMESTAMP '2025-02-12 12:00:00'"));
            assertTrue(count(c, "SELECT COUNT(*) FROM stories WHERE date > TIMESTAMP '2025-03-13 12:00:00'") > 0,
                    "yesterday's stories exist");
            // Heavy tail: the biggest thread is far above the mean.
            long max = count(c, "SELECT MAX(n) FROM (SELECT COUNT(*) n FROM old_comments GROUP BY story_id)");
            double mean = (double) summary.oldComments() / summary.oldStories();
            assertTrue(max > 10 * mean, "max thread " + max + " vs mean " + mean);
            // Every story has a top-level comment shown at the default filter (a ViewComment link to follow), and
            // some comments are still rated below it.
            for (String[] t : new String[][] {{"stories", "comments"}, {"old_stories", "old_comments"}}) {
                assertEquals(0, count(c, "SELECT COUNT(*) FROM " + t[0] + " s WHERE NOT EXISTS (SELECT 1 FROM "
                        + t[1] + " c WHERE c.story_id = s.id AND c.parent = 0 AND c.rating >= 0)"), t[0]);
            }
            assertTrue(count(c, "SELECT COUNT(*) FROM old_comments WHERE rating < 0") > 0);
            // childs matches the actual replies.
            assertEquals(0, count(c, "SELECT COUNT(*) FROM comments p WHERE p.childs <> "
                    + "(SELECT COUNT(*) FROM comments r WHERE r.parent = p.id)"));
            // New rows get fresh ids after the explicit-id load.
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO stories (title, body, date, writer, category) "
                        + "VALUES ('t', 'b', CURRENT_TIMESTAMP, 1, 1)");
            }
            assertEquals(summary.oldStories() + summary.liveStories() + 1, count(c, "SELECT MAX(id) FROM stories"));
        }
    }

    private static long fingerprint(String name) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1")) {
            new DataGenerator(DataSpec.ofScale(0.001), 11, NOW).load(c);
            return count(c, "SELECT SUM(CAST(LENGTH(comment) AS BIGINT) * id + rating) FROM old_comments")
                    + count(c, "SELECT SUM(CAST(LENGTH(title) AS BIGINT) * id) FROM stories");
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
