package io.hybridconnector.rubbos.client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

import io.hybridconnector.rubbos.client.stats.ResultFiles;
import io.hybridconnector.rubbos.client.stats.RunResult;
import io.hybridconnector.rubbos.client.workload.Mix;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Command line of the client emulator, against any running RUBBoS. Main thread. */
@Command(name = "rubbos-client", mixinStandardHelpOptions = true,
        description = "Closed-loop RUBBoS client emulator: emulated users with think time, per-interaction stats.")
public final class ClientMain implements Callable<Integer> {

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "server host (default: ${DEFAULT-VALUE})")
    String host;
    @Option(names = "--port", defaultValue = "8080", description = "server port (default: ${DEFAULT-VALUE})")
    int port;
    @Option(names = "--base", defaultValue = "/rubbos", description = "context path (default: ${DEFAULT-VALUE})")
    String base;
    @Option(names = "--users", defaultValue = "100", description = "emulated users (default: ${DEFAULT-VALUE})")
    int users;
    @Option(names = "--mix", defaultValue = "browse-only",
            description = "browse-only or read-write (default: ${DEFAULT-VALUE})")
    String mix;
    @Option(names = "--think-ms", defaultValue = "7000",
            description = "mean think time in ms, negative exponential; 0 = none (default: ${DEFAULT-VALUE})")
    long thinkMillis;
    @Option(names = "--up", defaultValue = "30", description = "up-ramp seconds (default: ${DEFAULT-VALUE})")
    long up;
    @Option(names = "--run", defaultValue = "120", description = "measured seconds (default: ${DEFAULT-VALUE})")
    long run;
    @Option(names = "--down", defaultValue = "10", description = "down-ramp seconds (default: ${DEFAULT-VALUE})")
    long down;
    @Option(names = "--authors", defaultValue = "0.10",
            description = "share of author sessions (default: ${DEFAULT-VALUE})")
    double authorShare;
    @Option(names = "--db-users", defaultValue = "50000",
            description = "regular users in the database, user1..userN (default: ${DEFAULT-VALUE}; scale 0.1)")
    int dbUsers;
    @Option(names = "--db-authors", defaultValue = "50", description = "authors in the database (default: 50)")
    int dbAuthors;
    @Option(names = "--no-images", description = "do not fetch each page's images")
    boolean noImages;
    @Option(names = "--seed", defaultValue = "1", description = "random seed (default: ${DEFAULT-VALUE})")
    long seed;
    @Option(names = "--csv", description = "write the per-state table to this CSV file")
    Path csv;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ClientMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        ClientConfig config = new ClientConfig(host, port, base, users, Mix.of(mix), thinkMillis,
                Duration.ofSeconds(up), Duration.ofSeconds(run), Duration.ofSeconds(down), authorShare, dbUsers,
                dbAuthors, 1000, !noImages, seed, 5);
        RunResult result = new ClientEmulator(config, System.out).run();
        System.out.println();
        System.out.println(ResultFiles.markdown(result));
        if (csv != null) {
            ResultFiles.writeCsv(result, csv);
        }
        return result.errors() == 0 ? 0 : 1;
    }
}
