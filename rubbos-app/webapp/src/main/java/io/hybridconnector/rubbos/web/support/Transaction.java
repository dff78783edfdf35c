package io.hybridconnector.rubbos.web.support;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs a unit of work with auto-commit off and restores it, so that a pooled connection goes back to the pool as it
 * came out. The original ran its multi-statement writes (insert a comment, bump its parent's reply count) without
 * a transaction; doing them atomically costs one commit and keeps the counts right under concurrency.
 * Request thread.
 */
public final class Transaction {

    /** A piece of work on one connection. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException, NotFoundException;
    }

    private Transaction() {
    }

    public static <T> T run(Connection connection, Work<T> work) throws SQLException, NotFoundException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        boolean done = false;
        try {
            T result = work.run(connection);
            connection.commit();
            done = true;
            return result;
        } finally {
            if (!done) {
                connection.rollback();
            }
            connection.setAutoCommit(autoCommit);
        }
    }
}
