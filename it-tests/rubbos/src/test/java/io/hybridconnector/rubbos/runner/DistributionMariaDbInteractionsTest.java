package io.hybridconnector.rubbos.runner;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.hybridconnector.bench.harness.tomcat.CatalinaBase;

/**
 * Issue 5 item 6: the RUBBoS WAR, unchanged, deployed on a real Tomcat 10.1 distribution (catalina.sh run, our jar
 * and the MariaDB driver in {@code lib/}) with {@code HybridHttp11Protocol}, on MariaDB at 127.0.0.1:3306 (database
 * {@code rubbos_test}). The body is rubbos-app's {@link InteractionsContract}: all 24 interactions and their
 * content, the six writes checked in the database, the 400 pages. Skipped, saying why, when MariaDB is unreachable.
 * In this package so that it can use the runner's package-private test body and Tomcat helper.
 */
class DistributionMariaDbInteractionsTest extends InteractionsContract {

    RubbosTomcat tomcat;

    @Override
    ConnectorChoice connector() {
        return ConnectorChoice.HYBRID;
    }

    @Override
    JdbcSettings database() {
        return HybridMariaDbInteractionsTest.rubbosTestDatabase();
    }

    @Override
    int startServer() throws Exception {
        List<Path> jars;
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("rubbos.tomcat.lib")))) {
            jars = files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
        Path work = Path.of(System.getProperty("rubbos.work"));
        tomcat = RubbosTomcat.start(new RubbosTomcat.Spec(Path.of(System.getProperty("rubbos.tomcat.home")),
                work.resolve(getClass().getSimpleName() + "-tomcat").toAbsolutePath(), connector(), Map.of(),
                CatalinaBase.freePort(), Path.of(System.getProperty("rubbos.war")).toAbsolutePath(), jars,
                List.of("-Xms256m", "-Xmx512m", "-Drubbos.jdbc.url=" + jdbc.url()), null), Duration.ofSeconds(120));
        return tomcat.port();
    }

    @Override
    void stopServer() throws Exception {
        if (tomcat != null) {
            tomcat.close();
        }
    }
}
