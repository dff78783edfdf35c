package io.hybridconnector.reliability;

import java.time.Duration;

/**
 * The sizes and durations of one run: {@code quick} takes about 12 minutes on a 2-core machine, {@code full} is what
 * issue 16 asks for (10,000 idle connections, 2,000 slowloris connections, 200 slow readers, a 30-minute soak).
 * Immutable.
 *
 * @param idleConnections       scenario 1: idle keep-alive connections per connector
 * @param slowlorisConnections  scenario 2: connections that trickle their headers (and as many that trickle a body)
 * @param slowReaders           scenario 3: connections asking 10 MB and reading slowly or not at all
 * @param faultRepeats          scenario 4: repeats of each fault (resets, half-closes, throwing servlets)
 * @param churnConnections      scenario 4: connections opened and closed as fast as possible
 * @param uploadMegabytes       scenario 5: size of the checksummed uploads
 * @param soak                  scenario 7: mixed traffic per connector
 * @param soakSample            scenario 7: sampling period of fds, RSS, heap after GC, threads
 * @param soakDrain             scenario 7: how long the resources are watched after the load stops, every 5 s: past
 *                              the connectors' keep-alive timeout (20 s) and Tomcat's idle worker timeout (60 s),
 *                              after which fds and threads can be back at their start
 * @param overload              scenario 8: measured window at 3x capacity
 */
public record Profile(String name, int idleConnections, int slowlorisConnections, int slowReaders, int faultRepeats,
        int churnConnections, int uploadMegabytes, Duration soak, Duration soakSample, Duration soakDrain,
        Duration overload) {

    public static Profile of(String name) {
        return switch (name) {
            case "quick" -> new Profile("quick", 2_000, 200, 50, 30, 20_000, 20, Duration.ofMinutes(3),
                    Duration.ofSeconds(5), Duration.ofSeconds(90), Duration.ofSeconds(5));
            case "full" -> new Profile("full", 10_000, 2_000, 200, 1_000, 20_000, 100, Duration.ofMinutes(30),
                    Duration.ofSeconds(30), Duration.ofSeconds(120), Duration.ofSeconds(20));
            default -> throw new IllegalArgumentException("profile must be quick or full, got " + name);
        };
    }
}
