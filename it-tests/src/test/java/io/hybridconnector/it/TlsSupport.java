package io.hybridconnector.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;

/**
 * Key material and clients for TLS tests: PKCS12 keystores made with the JDK's {@code keytool} (a process) at test
 * time, Tomcat host configurations using them, client contexts trusting them.
 */
final class TlsSupport {

    static final String PASSWORD = "changeit";

    /** {@code -Dit.tls=true}: the parity tests' servers serve HTTPS and their clients connect with TLS. */
    static final boolean PARITY_OVER_TLS = Boolean.getBoolean("it.tls");

    private static Path defaultKeystore;

    private TlsSupport() {
    }

    /** The keystore of the parity tests' TLS mode: CN=localhost, made once per JVM. */
    static synchronized Path defaultKeystore() throws Exception {
        if (defaultKeystore == null) {
            Path dir = Files.createTempDirectory("it-tls");
            defaultKeystore = keystore(dir, "localhost", "CN=localhost", "SAN=dns:localhost,ip:127.0.0.1");
        }
        return defaultKeystore;
    }

    static Path keystore(Path dir, String name, String dname, String san) throws Exception {
        Path file = dir.resolve(name + ".p12");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair", "-alias", name,
                "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-dname", dname, "-ext", san,
                "-validity", "30", "-keystore", file.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD,
                "-keypass", PASSWORD));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool failed: " + new String(output, StandardCharsets.UTF_8));
        }
        return file;
    }

    static Path truststore(Path file, X509Certificate... trusted) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        for (int i = 0; i < trusted.length; i++) {
            ks.setCertificateEntry("trusted" + i, trusted[i]);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            ks.store(out, PASSWORD.toCharArray());
        }
        return file;
    }

    static KeyStore load(Path file) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    static X509Certificate certificate(Path keystore) throws Exception {
        KeyStore ks = load(keystore);
        return (X509Certificate) ks.getCertificate(ks.aliases().nextElement());
    }

    static SSLHostConfig host(String name, Path keystore) {
        SSLHostConfig host = new SSLHostConfig();
        host.setHostName(name);
        SSLHostConfigCertificate certificate =
                new SSLHostConfigCertificate(host, SSLHostConfigCertificate.Type.UNDEFINED);
        certificate.setCertificateKeystoreFile(keystore.toString());
        certificate.setCertificateKeystorePassword(PASSWORD);
        certificate.setCertificateKeystoreType("PKCS12");
        host.addCertificate(certificate);
        return host;
    }

    /** A fresh client context (no cached sessions) trusting {@code trusted}, with {@code clientKeys} if not null. */
    static SSLContext clientContext(List<X509Certificate> trusted, Path clientKeys) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        for (int i = 0; i < trusted.size(); i++) {
            trust.setCertificateEntry("server" + i, trusted.get(i));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (clientKeys != null) {
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(clientKeys), PASSWORD.toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    static SSLSocket connect(int port, SSLContext ctx, String sni, int soTimeoutMillis) throws IOException {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(soTimeoutMillis);
        if (sni != null) {
            SSLParameters p = s.getSSLParameters();
            p.setServerNames(List.of(new SNIHostName(sni)));
            s.setSSLParameters(p);
        }
        s.startHandshake();
        return s;
    }
}
