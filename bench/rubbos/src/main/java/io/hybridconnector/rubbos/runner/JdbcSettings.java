package io.hybridconnector.rubbos.runner;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * Where the database is, as the WAR's META-INF/context.xml reads it: the {@code rubbos.jdbc.*} system properties.
 *
 * @param url    JDBC URL
 * @param driver driver class
 * @param user   user name
 * @param password password, possibly empty
 */
public record JdbcSettings(String url, String driver, String user, String password) {

    /** In-process H2, kept alive between connections; the quick default. Tomcat and the data share the JVM. */
    public static JdbcSettings h2(String name) {
        return new JdbcSettings("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "org.h2.Driver", "sa", "");
    }

    /** MariaDB at 127.0.0.1:3306, database {@code test}, root without password: the 3-tier default. */
    public static JdbcSettings mariadb() {
        return new JdbcSettings("jdbc:mariadb://127.0.0.1:3306/test", "org.mariadb.jdbc.Driver", "root", "");
    }

    /** Publishes these settings to context.xml; must run before Tomcat deploys the WAR. */
    public void apply() {
        System.setProperty("rubbos.jdbc.url", url);
        System.setProperty("rubbos.jdbc.driver", driver);
        System.setProperty("rubbos.jdbc.user", user);
        System.setProperty("rubbos.jdbc.password", password);
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }
}
