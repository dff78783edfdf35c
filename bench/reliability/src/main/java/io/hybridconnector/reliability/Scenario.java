package io.hybridconnector.reliability;

/** One of issue 16's scenarios: starts what it needs, runs stock NIO and ours, adds its figures. Main thread. */
public interface Scenario {

    /** Short name used on the command line ({@code --scenarios faults,idle}) and in the report. */
    String name();

    /** One line: what it does. */
    String title();

    void run(Lab lab) throws Exception;
}
