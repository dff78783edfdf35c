package io.hybridconnector.rubbos.client;

import java.time.Duration;

import io.hybridconnector.rubbos.client.workload.Mix;

/**
 * Everything one client run needs. Defaults in {@link ClientMain} follow the original benchmark where it had one
 * (7 s think time, 10% author sessions, 1000 transitions at most per session, 20 stories per page).
 *
 * @param host            web server host
 * @param port            web server port
 * @param basePath        context path of the web application, e.g. {@code /rubbos}
 * @param users           emulated users (threads), all started in the up ramp
 * @param mix             browse-only or read/write
 * @param thinkMillis     mean think time in ms (negative exponential); 0 = none
 * @param upRamp          warm-up phase, not reported
 * @param run             measured phase
 * @param downRamp        cool-down phase, not reported
 * @param authorShare     share of users that run author sessions (0.10)
 * @param databaseUsers   regular users in the database (user1..userN), for identities and searches
 * @param databaseAuthors authors in the database (author1..authorN)
 * @param maxTransitions  transitions after which a session ends anyway
 * @param fetchImages     fetch each page's images (the logo) as part of its response time, like the original
 * @param seed            random seed; user i uses seed + i
 * @param progressSeconds seconds between progress lines; 0 = silent
 */
public record ClientConfig(String host, int port, String basePath, int users, Mix mix, long thinkMillis,
                           Duration upRamp, Duration run, Duration downRamp, double authorShare, int databaseUsers,
                           int databaseAuthors, int maxTransitions, boolean fetchImages, long seed,
                           int progressSeconds) {

    public ClientConfig {
        if (users < 1) {
            throw new IllegalArgumentException("users must be >= 1, got " + users);
        }
        if (thinkMillis < 0) {
            throw new IllegalArgumentException("think time must be >= 0 ms, got " + thinkMillis);
        }
    }

    public ClientConfig withUsers(int n) {
        return new ClientConfig(host, port, basePath, n, mix, thinkMillis, upRamp, run, downRamp, authorShare,
                databaseUsers, databaseAuthors, maxTransitions, fetchImages, seed, progressSeconds);
    }

    public ClientConfig withPort(int p) {
        return new ClientConfig(host, p, basePath, users, mix, thinkMillis, upRamp, run, downRamp, authorShare,
                databaseUsers, databaseAuthors, maxTransitions, fetchImages, seed, progressSeconds);
    }
}
