package io.hybridconnector.rubbos.runner;

import io.hybridconnector.bench.harness.measure.ProcessUsage;
import io.hybridconnector.rubbos.client.stats.RunResult;

/**
 * One point of the Fig 3 sweep: a connector, a number of users, what the client measured and what the server
 * process cost over the measured phase, and what the client's own process cost (to show whether the client,
 * not the server, was the limit). In the 3-tier mode {@code server} is the Tomcat JVM(s), {@code web} Apache
 * httpd's processes and {@code database} MariaDB's; both are null in the embedded mode.
 */
record SweepPoint(ConnectorChoice connector, int users, RunResult result, ProcessUsage.Rates server,
                  ProcessUsage.Rates client, ProcessUsage.Rates web, ProcessUsage.Rates database) {

    SweepPoint(ConnectorChoice connector, int users, RunResult result, ProcessUsage.Rates server,
               ProcessUsage.Rates client) {
        this(connector, users, result, server, client, null, null);
    }
}
