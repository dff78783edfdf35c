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
     * Loads the data set unless {@code stories} already holds one made today or yesterday with as many users as this
     * scale asks for (the data's dates are relative to the day it was generated, and OlderStories looks 1-7 days
     * back).
     */
    static String loadIfStale(JdbcSettings jdbc, DataSpec spec, boolean force) throws SQLException {
        try (Connection c = jdbc.connect()) {
            if (!force) {
                Optional<String> current = current(c, spec);
                if (current.isPresent()) {
                    return "kept the loaded data set (" + current.get() + ")";
                }
            }
            return "loaded " + new DataGenerator(spec, 42, LocalDateTime.now()).load(c);
        }
    }

    private static Optional<String> current(Connection c, DataSpec spec) {
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT (SELECT MAX(date) FROM stories), (SELECT COUNT(*) FROM users)")) {
            if (!r.next()) {
                return Optional.empty();
            }
            Timestamp newest = r.getTimestamp(1);
            long users = r.getLong(2);
            boolean fresh = newest != null && newest.toLocalDateTime().isAfter(LocalDateTime.now().minusDays(1));
            // +1: the Anonymous Coward; more rows than that are users the read/write mix registered.
            boolean sized = users >= spec.users() + spec.authors() + 1
                    && users < spec.users() + spec.authors() + 1 + spec.users() / 10;
            return fresh && sized ? Optional.of("newest story " + newest + ", " + users + " users") : Optional.empty();
        } catch (SQLException noSchema) {
            return Optional.empty();
        }
    }
}
