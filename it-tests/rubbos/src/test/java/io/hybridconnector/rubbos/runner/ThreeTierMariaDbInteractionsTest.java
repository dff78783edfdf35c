package io.hybridconnector.rubbos.runner;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;

import io.hybridconnector.bench.harness.tomcat.CatalinaBase;

/**
 * The same body through the whole 3-tier path of the benchmark: Apache httpd (mod_proxy_http, backend connections
 * kept alive) -> the Tomcat distribution with our connector -> MariaDB. Skipped, saying how to get them, when httpd
 * is not installed or MariaDB is unreachable.
 */
class ThreeTierMariaDbInteractionsTest extends DistributionMariaDbInteractionsTest {

    Httpd httpd;

    @Override
    JdbcSettings database() {
        assumeTrue(Httpd.installed(), Httpd.HOW_TO_GET);
        return super.database();
    }

    @Override
    int startServer() throws Exception {
        int tomcatPort = super.startServer();
        httpd = Httpd.start(new Httpd.Spec(Path.of(System.getProperty("rubbos.work")).resolve("httpd")
                .toAbsolutePath(), CatalinaBase.freePort(), List.of(tomcatPort), 1, 16, null));
        return httpd.port();
    }

    @Override
    void stopServer() throws Exception {
        if (httpd != null) {
            httpd.close();
        }
        super.stopServer();
    }
}
