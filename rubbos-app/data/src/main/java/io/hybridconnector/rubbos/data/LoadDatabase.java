package io.hybridconnector.rubbos.data;

import java.sql.Connection;
import java.sql.DriverManager;
import java.time.LocalDateTime;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Command line: create the schema and load a generated data set into the database at a JDBC URL. Main thread. */
@Command(name = "rubbos-load", mixinStandardHelpOptions = true,
        description = "Creates the RUBBoS schema and loads a deterministic data set (dates relative to now).")
public final class LoadDatabase implements Callable<Integer> {

    @Option(names = "--url", description = "JDBC URL (default: ${DEFAULT-VALUE})",
            defaultValue = "jdbc:mariadb://127.0.0.1:3306/test")
    String url;

    @Option(names = "--user", description = "database user (default: ${DEFAULT-VALUE})", defaultValue = "root")
    String user;

    @Option(names = "--password", description = "database password (default: empty)", defaultValue = "")
    String password;

    @Option(names = "--scale", description = "data set scale, 1.0 = 500,000 users and two years of stories "
            + "(default: ${DEFAULT-VALUE})", defaultValue = "" + DataSpec.QUICK_SCALE)
    double scale;

    @Option(names = "--seed", description = "random seed (default: ${DEFAULT-VALUE})", defaultValue = "42")
    long seed;

    public static void main(String[] args) {
        System.exit(new CommandLine(new LoadDatabase()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        try (Connection connection = DriverManager.getConnection(url, user, password)) {
            DataGenerator.Summary summary = new DataGenerator(DataSpec.ofScale(scale), seed, LocalDateTime.now())
                    .load(connection);
            System.out.println("RUBBoS data at " + url + ": " + summary);
        }
        return 0;
    }
}
