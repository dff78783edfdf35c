package io.hybridconnector.reliability.scenario;

import java.util.List;

/**
 * The rules that turn what the faults that only a deadline ends ({@link HungServlets}, {@link VanishedClients}) left
 * behind into the report's verdicts ({@code ok}: ours equal or better, {@code worse}, {@code differs}); apart from
 * the parts that measure, so that each rule is tested alone. Stateless.
 */
final class FaultVerdicts {

    /** Ours may cut a vanished connection this much later than stock and still be "ok". */
    static final double CUT_SLACK_SECONDS = 1;

    private FaultVerdicts() {
    }

    /** Back where it started, or no further from it than stock. */
    static String leftBehind(long stockBefore, long stockAfter, long oursBefore, long oursAfter) {
        return oursAfter <= oursBefore || oursAfter - oursBefore <= stockAfter - stockBefore ? "ok" : "worse";
    }

    /**
     * Connector threads: as {@link #leftBehind}; but a thread ours started for a hand-off stays parked for 60 s before
     * it exits, so more threads than before are ok too when none of ours runs a request any more and ours has no more
     * than stock has then.
     */
    static String threads(long stockBefore, long stockAfter, long oursBefore, long oursAfter, long oursBusyAfter) {
        if (leftBehind(stockBefore, stockAfter, oursBefore, oursAfter).equals("ok")) {
            return "ok";
        }
        return oursBusyAfter == 0 && oursAfter <= stockAfter ? "ok" : "worse";
    }

    /**
     * File descriptors: sockets as {@link #leftBehind} (none kept); other kinds may grow by two per connector thread
     * ours added, since each thread of ours that waited for a socket keeps its own selector (an epoll and an eventfd)
     * until it exits.
     */
    static String fds(long stockSocketDelta, long oursSocketDelta, long oursOtherDelta, long oursThreadGrowth) {
        boolean sockets = oursSocketDelta <= Math.max(0, stockSocketDelta);
        boolean others = oursOtherDelta <= 2 * Math.max(0, oursThreadGrowth);
        return sockets && others ? "ok" : "worse";
    }

    /**
     * A vanished client's connection, cut after that many seconds or still held ({@code null}): ours is ok if it cut
     * what stock cut, no later than stock plus {@link #CUT_SLACK_SECONDS}, or cut what stock held; holding what stock
     * cut differs.
     */
    static String cut(Double stockSeconds, Double oursSeconds) {
        if (oursSeconds == null) {
            return stockSeconds == null ? "ok" : "differs";
        }
        return stockSeconds == null || oursSeconds <= stockSeconds + CUT_SLACK_SECONDS ? "ok" : "worse";
    }

    /**
     * What the clients of hung requests got, each as "STATUS complete, closed" or "no response, closed": ok if ours'
     * clients got what stock's got, or every one of ours got a complete response where some of stock's did not (a
     * response tells the client what happened, a bare close does not).
     */
    static String answers(List<String> stock, List<String> ours, boolean stockAllComplete, boolean oursAllComplete) {
        if (stock.stream().sorted().toList().equals(ours.stream().sorted().toList())) {
            return "ok";
        }
        return oursAllComplete && !stockAllComplete ? "ok" : "differs";
    }
}
