package io.hybridconnector.rubbos.runner;

/** The interactions on stock NIO with embedded H2. */
class StockNioH2InteractionsTest extends InteractionsContract {

    @Override
    ConnectorChoice connector() {
        return ConnectorChoice.STOCK;
    }

    @Override
    JdbcSettings database() {
        return JdbcSettings.h2("stock-test");
    }
}
