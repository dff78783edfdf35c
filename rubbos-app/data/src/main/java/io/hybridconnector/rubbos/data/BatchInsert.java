package io.hybridconnector.rubbos.data;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * One prepared INSERT fed row by row and sent to the database in batches, so a load of a million rows costs a few
 * thousand round trips instead of a million. Single thread (the loader's).
 */
final class BatchInsert implements AutoCloseable {

    private static final int BATCH_ROWS = 1000;

    private final PreparedStatement statement;
    private int pending;
    private long rows;

    BatchInsert(Connection connection, String sql) throws SQLException {
        statement = connection.prepareStatement(sql);
    }

    /** Adds one row; values bind to the placeholders in order. */
    void row(Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            statement.setObject(i + 1, values[i]);
        }
        statement.addBatch();
        rows++;
        if (++pending == BATCH_ROWS) {
            flush();
        }
    }

    long rows() {
        return rows;
    }

    private void flush() throws SQLException {
        if (pending > 0) {
            statement.executeBatch();
            pending = 0;
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            flush();
        } finally {
            statement.close();
        }
    }
}
