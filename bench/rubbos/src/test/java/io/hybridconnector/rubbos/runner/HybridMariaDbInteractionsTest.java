package io.hybridconnector.rubbos.runner;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The interactions on our connector with MariaDB at 127.0.0.1:3306 (database {@code test}, root, no password),
 * the 3-tier database. Skipped, saying why, when that server is not reachable. Uses its own database
 * {@code rubbos_test} so that it never overwrites a loaded benchmark data set in {@code test}.
 */
class HybridMariaDbInteractionsTest extends InteractionsContract {

    @Override
    ConnectorChoice connector() {
        return ConnectorChoice.HYBRID;
    }

    @Override
    JdbcSettings database() {
        return rubbosTestDatabase();
    }

    /**
     * @return the database {@code rubbos_test} on MariaDB at 127.0.0.1:3306, created if absent; skips the calling
     * test class with a message when the server is not reachable or refuses root without a password
     */
    static JdbcSettings rubbosTestDatabase() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 3306), 1000);
        } catch (IOException e) {
            assumeTrue(false, "MariaDB is not reachable at 127.0.0.1:3306 (" + e.getMessage() + "); install and "
                    + "start it (apt-get install mariadb-server) to run this test");
        }
        JdbcSettings server = JdbcSettings.mariadb();
        try (Connection c = server.connect(); var s = c.createStatement()) {
            s.execute("CREATE DATABASE IF NOT EXISTS rubbos_test");
        } catch (SQLException e) {
            assumeTrue(false, "MariaDB at 127.0.0.1:3306 refused root without password: " + e.getMessage());
        }
        return new JdbcSettings("jdbc:mariadb://127.0.0.1:3306/rubbos_test", server.driver(), server.user(),
                server.password());
    }
}
