package io.hybridconnector.rubbos.runner;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.hybridconnector.rubbos.data.DataGenerator;
import io.hybridconnector.rubbos.data.DataSpec;

/**
 * The database tier of the 3-tier mode: MariaDB at 127.0.0.1:3306 (root, no password, database {@code test}).
 * Starts the server when it is installed but down, says exactly how to get it when it is not, and loads the
 * generated data when the database does not hold a current data set. Main thread.
 */
final class MariaDb {

    static final Path SERVER = Path.of("/usr/sbin/mariadbd");
    static final String HOST = "127.0.0.1";
    static final int PORT = 3306;

    /** The exact commands that give this machine a MariaDB the runner can use. */
    static final String HOW_TO_GET = "MariaDB is not installed (" + SERVER + "). On Debian/Ubuntu, as root:\n"
            + "  apt-get update && apt-get install -y mariadb-server\n"
            + "  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd\n"
            + "The runner connects to 127.0.0.1:3306 as root without a password and uses the database `test`.";

    private MariaDb() {
    }

    static boolean reachable() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, PORT), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Makes sure the server listens: starts it (as a background daemon) when it is installed and down.
     *
     * @throws IOException with the commands to run when it is not installed or does not come up
     */
    static void ensureRunning() throws IOException, InterruptedException {
        if (reachable()) {
            return;
        }
        if (!Files.isExecutable(SERVER)) {
            throw new IOException(HOW_TO_GET);
        }
        List<String> command = List.of("start-stop-daemon", "--start", "--oknodo", "--background", "--exec",
                SERVER.toString());
        System.out.println("MariaDB is down; starting it: " + String.join(" ", command));
        Process p = new ProcessBuilder(command).inheritIO().start();
        p.waitFor(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!reachable()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("MariaDB did not listen on " + HOST + ":" + PORT + " within 60 s after `"
                        + String.join(" ", command) + "`; look at its error log (journalctl or /var/log/mysql)");
            }
            Thread.sleep(500);
        }
    }

    /** @return the server's process id, if one named mariadbd (or mysqld) runs on this machine */
    static Optional<Long> pid() {
        return ProcessHandle.allProcesses().filter(p -> p.info().command()
                .map(c -> c.endsWith("/mariadbd") || c.endsWith("/mysqld")).orElse(false))
                .map(ProcessHandle::pid).findFirst();
    }

    /**
     * Loads the data set unless the database holds one made today or yesterday for this scale and unchanged since it
     * was loaded (the data's dates are relative to the day it was generated, and OlderStories looks 1-7 days back).
     * "Unchanged" compares the row counts of every table with those recorded at load time: a read/write run adds
     * stories without comments on top of the home page, and a sweep run on those would measure a different
     * benchmark (and a second connector would start from what the first one left).
     */
    static String loadIfStale(JdbcSettings jdbc, DataSpec spec, boolean force) throws SQLException {
        try (Connection c = jdbc.connect()) {
            if (!force) {
                Optional<String> current = current(c, spec);
                if (current.isPresent()) {
                    return "kept the loaded data set (" + current.get() + ")";
                }
            }
            DataGenerator.Summary loaded = new DataGenerator(spec, 42, LocalDateTime.now()).load(c);
            recordFingerprint(c, spec);
            return "loaded " + loaded;
        }
    }

    private static final String FINGERPRINT_TABLE = "rubbos_loaded_data_set";

    /** Row counts of the tables a run can change, in one string. */
    private static String fingerprint(Connection c) throws SQLException {
        StringBuilder counts = new StringBuilder();
        for (String table : List.of("users", "stories", "comments", "submissions", "moderator_log", "old_stories",
                "old_comments")) {
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
                r.next();
                counts.append(counts.length() == 0 ? "" : ", ").append(table).append(' ').append(r.getLong(1));
            }
        }
        return counts.toString();
    }

    private static void recordFingerprint(Connection c, DataSpec spec) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + FINGERPRINT_TABLE
                    + " (spec VARCHAR(512) NOT NULL, loaded_at TIMESTAMP NOT NULL, row_counts VARCHAR(512) NOT NULL)");
            s.execute("DELETE FROM " + FINGERPRINT_TABLE);
        }
        try (var insert = c.prepareStatement("INSERT INTO " + FINGERPRINT_TABLE + " VALUES (?, ?, ?)")) {
            insert.setString(1, recorded(spec));
            insert.setTimestamp(2, Timestamp.valueOf(LocalDateTime.now()));
            insert.setString(3, fingerprint(c));
            insert.executeUpdate();
        }
    }

    /** The data set's description as recorded: its spec and the generator's version. */
    private static String recorded(DataSpec spec) {
        return spec + ", generator " + DataGenerator.VERSION;
    }

    private static Optional<String> current(Connection c, DataSpec spec) {
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT spec, loaded_at, row_counts FROM " + FINGERPRINT_TABLE)) {
            if (!r.next()) {
                return Optional.empty();
            }
            Timestamp loadedAt = r.getTimestamp(2);
            if (!recorded(spec).equals(r.getString(1))
                    || !loadedAt.toLocalDateTime().isAfter(LocalDateTime.now().minusDays(1))) {
                return Optional.empty(); // another scale or generator, or a day old: no need to count rows
            }
            String now = fingerprint(c);
            if (!now.equals(r.getString(3))) {
                System.out.println("MariaDB: the data set changed since it was loaded (" + r.getString(3) + " -> "
                        + now + "); reloading it");
                return Optional.empty();
            }
            return Optional.of("loaded " + loadedAt + ", " + now);
        } catch (SQLException noSchema) {
            return Optional.empty();
        }
    }
}
