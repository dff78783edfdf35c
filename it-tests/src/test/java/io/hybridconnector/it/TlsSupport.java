package io.hybridconnector.it;

import java.nio.file.Files;
import java.nio.file.Path;

import io.hybridconnector.TempDirs;
import io.hybridconnector.TlsKeys;

/**
 * The parity tests' TLS mode ({@code -Dit.tls=true}): one keystore per JVM for CN=localhost, made with the connector
 * tests' {@link TlsKeys} (this module uses the connector's test jar).
 */
final class TlsSupport {

    /** {@code -Dit.tls=true}: the parity tests' servers serve HTTPS and their clients connect with TLS. */
    static final boolean PARITY_OVER_TLS = Boolean.getBoolean("it.tls");

    private static TlsKeys keys;
    private static Path defaultKeystore;

    private TlsSupport() {
    }

    /** The keys of the parity tests' TLS mode, made once per JVM; their client contexts trust the keystore's. */
    static synchronized TlsKeys keys() throws Exception {
        if (keys == null) {
            java.nio.file.Path dir = Files.createTempDirectory("it-tls");
            // Made once per JVM and used by every TLS test of the run: removed when the test JVM exits.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> TempDirs.deleteRecursively(dir)));
            keys = new TlsKeys(dir);
            defaultKeystore = keys.serverKeystore("localhost", "CN=localhost", "localhost");
        }
        return keys;
    }

    /** The keystore of the parity tests' TLS mode: CN=localhost. */
    static synchronized Path defaultKeystore() throws Exception {
        keys();
        return defaultKeystore;
    }
}
