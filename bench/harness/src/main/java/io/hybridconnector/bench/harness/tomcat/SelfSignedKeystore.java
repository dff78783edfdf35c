package io.hybridconnector.bench.harness.tomcat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A PKCS12 keystore with one self-signed certificate for {@code 127.0.0.1} and {@code localhost}, made by the JDK's own
 * {@code keytool} so that no certificate is checked in and none outlives the run. The server side gets it through
 * {@link SideBySideTomcat.Protocols}; the client side trusts exactly this certificate ({@link #trustingContext}), so
 * the JDK client's certificate and host-name checks stay on instead of a trust-all manager hiding a wrong setup.
 * Immutable once created.
 *
 * @param file     where the keystore is
 * @param password the store's and the key's password
 */
public record SelfSignedKeystore(Path file, String password) {

    /** Generation takes a second or two (an RSA key); a hung keytool fails the run instead of stalling it. */
    private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

    /**
     * Runs {@code keytool -genkeypair} of the JDK at {@code javaHome} into {@code file} (replaced if it exists): RSA
     * 2048, valid for 30 days, subject alternative names {@code IP:127.0.0.1} and {@code DNS:localhost}, under the
     * alias Tomcat's {@code <Certificate>} looks for by default ({@code tomcat}).
     */
    public static SelfSignedKeystore generate(Path javaHome, Path file, String password) throws IOException,
            InterruptedException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.deleteIfExists(file);
        List<String> command = List.of(javaHome.resolve("bin/keytool").toString(), "-genkeypair", "-alias", "tomcat",
                "-keyalg", "RSA", "-keysize", "2048", "-validity", "30", "-dname", "CN=localhost",
                "-ext", "SAN=IP:127.0.0.1,DNS:localhost", "-storetype", "PKCS12", "-keystore", file.toString(),
                "-storepass", password, "-keypass", password, "-noprompt");
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            keytool.destroyForcibly();
            throw new IOException("keytool did not finish within " + KEYTOOL_TIMEOUT_SECONDS + " s: " + output);
        }
        if (keytool.exitValue() != 0 || !Files.exists(file)) {
            throw new IOException("keytool exited with " + keytool.exitValue() + ": " + output);
        }
        return new SelfSignedKeystore(file, password);
    }

    /** A client context whose only trusted certificate is this keystore's (TLS 1.2 and 1.3 as the JDK offers them). */
    public SSLContext trustingContext() throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
