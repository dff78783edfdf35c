package io.hybridconnector.rubbos.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The two databases the benchmark runs on, and what differs between them when the schema is created and loaded.
 * Queries of the web application are written to run unchanged on both.
 */
public enum Dialect {

    /** Embedded, in-process; the quick default. */
    H2("schema-h2.sql"),
    /** MariaDB or MySQL over the network; the 3-tier mode. */
    MARIADB("schema-mariadb.sql");

    private final String schemaResource;

    Dialect(String schemaResource) {
        this.schemaResource = schemaResource;
    }

    /** @return the dialect of an open connection, from the product name its driver reports */
    public static Dialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        return product.contains("h2") ? H2 : MARIADB;
    }

    /** Drops and re-creates the eight tables. */
    public void createSchema(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String sql : schemaScript().split("\n;\n")) {
                String trimmed = stripComments(sql);
                if (!trimmed.isEmpty()) {
                    statement.execute(trimmed);
                }
            }
        }
    }

    /**
     * Lets a bulk load insert rows with chosen ids, including the anonymous user's id 0, which MariaDB would
     * otherwise replace with the next auto-increment value.
     */
    public void prepareBulkLoad(Connection connection) throws SQLException {
        if (this == MARIADB) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')");
            }
        }
    }

    /**
     * After rows were inserted with explicit ids, makes the next generated id follow the largest one. MariaDB does
     * that by itself; H2's identity columns do not.
     */
    public void resumeIdentity(Connection connection, String table) throws SQLException {
        if (this != H2) {
            return;
        }
        try (Statement statement = connection.createStatement();
             var rs = statement.executeQuery("SELECT COALESCE(MAX(id), 0) + 1 FROM " + table)) {
            rs.next();
            long next = rs.getLong(1);
            statement.execute("ALTER TABLE " + table + " ALTER COLUMN id RESTART WITH " + next);
        }
    }

    private String schemaScript() {
        try (InputStream in = Dialect.class.getResourceAsStream(schemaResource)) {
            if (in == null) {
                throw new IllegalStateException(schemaResource + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("\r\n", "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String stripComments(String sql) {
        StringBuilder kept = new StringBuilder();
        for (String line : sql.split("\n")) {
            if (!line.strip().startsWith("--")) {
                kept.append(line).append('\n');
            }
        }
        return kept.toString().strip();
    }
}
