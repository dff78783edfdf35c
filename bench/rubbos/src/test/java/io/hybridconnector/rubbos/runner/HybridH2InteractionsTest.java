package io.hybridconnector.rubbos.runner;

/** The interactions on our connector with embedded H2: the same body as stock NIO, the same results. */
class HybridH2InteractionsTest extends InteractionsContract {

    @Override
    ConnectorChoice connector() {
        return ConnectorChoice.HYBRID;
    }

    @Override
    JdbcSettings database() {
        return JdbcSettings.h2("hybrid-test");
    }
}
