package io.hybridconnector.rubbos.runner;

import io.hybridconnector.rubbos.client.stats.RunResult;

/**
 * One point of the Fig 3 sweep: a connector, a number of users, what the client measured and what the server
 * process cost over the measured phase, and what the client's own process cost (to show whether the client,
 * not the server, was the limit).
 */
record SweepPoint(ConnectorChoice connector, int users, RunResult result, ProcessMeter.Rates server,
                  ProcessMeter.Rates client) {
}
