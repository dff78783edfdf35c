package io.hybridconnector.rubbos.runner;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import io.hybridconnector.rubbos.data.DataGenerator;
import io.hybridconnector.rubbos.data.DataSpec;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The server tier of the quick mode, as its own process so that its CPU time and context switches can be measured
 * and the process pinned to a core: embedded Tomcat with the chosen connector, the WAR, and (by default) H2 in the
 * same JVM loaded with the generated data. Prints {@code RUBBOS_READY port=N} when it serves, then runs until its
 * standard input closes (the runner exiting) or it is killed. Main thread, then Tomcat's.
 */
@Command(name = "rubbos-server", mixinStandardHelpOptions = true,
        description = "Embedded Tomcat serving the RUBBoS WAR with stock NIO or the hybrid connector.")
public final class ServerMain implements Callable<Integer> {

    /** The line the runner waits for. */
    public static final String READY = "RUBBOS_READY port=";

    @Option(names = "--connector", defaultValue = "stock", description = "stock or hybrid (default: ${DEFAULT-VALUE})")
    String connector;
    @Option(names = "--port", defaultValue = "0", description = "port, 0 = any free one (default: ${DEFAULT-VALUE})")
    int port;
    @Option(names = "--war", required = true, description = "the RUBBoS WAR")
    Path war;
    @Option(names = "--db", defaultValue = "h2", description = "h2 (in-process, loaded at start) or mariadb "
            + "(127.0.0.1:3306/test, already loaded) (default: ${DEFAULT-VALUE})")
    String db;
    @Option(names = "--scale", defaultValue = "" + DataSpec.QUICK_SCALE,
            description = "data scale for h2 (default: ${DEFAULT-VALUE})")
    double scale;
    @Option(names = "--seed", defaultValue = "42", description = "data seed (default: ${DEFAULT-VALUE})")
    long seed;
    @Option(names = "--connector-attr", description = "a connector attribute as in server.xml, name=value "
            + "(repeatable), e.g. threads=200")
    Map<String, String> connectorAttributes = new LinkedHashMap<>();
    @Option(names = "--pool-max", defaultValue = "100", description = "the JDBC pool's maxTotal (and maxIdle), "
            + "as META-INF/context.xml reads it (default: ${DEFAULT-VALUE})")
    int poolMax;

    public static void main(String[] args) {
        int code = new CommandLine(new ServerMain()).execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    @Override
    public Integer call() throws Exception {
        JdbcSettings jdbc = db.equals("mariadb") ? JdbcSettings.mariadb() : JdbcSettings.h2("rubbos");
        if (!db.equals("mariadb")) {
            try (Connection c = jdbc.connect()) {
                System.out.println("rubbos-server: H2 " + new DataGenerator(DataSpec.ofScale(scale), seed,
                        LocalDateTime.now()).load(c));
            }
        }
        jdbc.apply();
        System.setProperty("rubbos.jdbc.maxTotal", Integer.toString(poolMax));
        EmbeddedRubbos server = EmbeddedRubbos.start(war, ConnectorChoice.of(connector), port, connectorAttributes);
        System.out.println("rubbos-server: " + ConnectorChoice.of(connector).protocol + " " + connectorAttributes
                + ", JDBC pool maxTotal " + poolMax + ", on Java " + Runtime.version() + ", "
                + Runtime.getRuntime().availableProcessors() + " CPU(s) visible");
        System.out.println(READY + server.port());
        System.out.flush();
        // Lives as long as the parent: the runner holds our stdin open.
        while (System.in.read() != -1) {
            // ignore input
        }
        server.close();
        return 0;
    }
}
