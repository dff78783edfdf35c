package io.hybridconnector;

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
 * Key material for TLS tests, made at test time with the JDK's {@code keytool} (a process): PKCS12 keystores with
 * self-signed EC certificates, a server truststore holding the client's certificate, and client-side contexts that
 * trust every server certificate made here; Tomcat host configurations using them, and a client connection. Shared with
 * {@code it-tests} through this module's test jar.
 */
public final class TlsKeys {

    public static final String PASSWORD = "changeit";

    private final Path dir;
    private final List<X509Certificate> serverCertificates = new ArrayList<>();

    public TlsKeys(Path dir) {
        this.dir = dir;
    }

    /**
     * Makes {@code name.p12} with one key pair and a self-signed certificate for {@code dname}, valid for the given
     * DNS names and 127.0.0.1.
     */
    public Path keystore(String name, String dname, String... dnsNames) throws Exception {
        Path file = dir.resolve(name + ".p12");
        StringBuilder san = new StringBuilder("SAN=");
        for (String dns : dnsNames) {
            san.append("dns:").append(dns).append(',');
        }
        san.append("ip:127.0.0.1");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg",
                "SHA256withECDSA", "-dname", dname, "-ext", san.toString(), "-validity", "30", "-keystore",
                file.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD);
        return file;
    }

    /** Makes a server keystore and remembers its certificate as trusted by {@link #clientContext}. */
    public Path serverKeystore(String name, String dname, String... dnsNames) throws Exception {
        Path file = keystore(name, dname, dnsNames);
        serverCertificates.add(certificate(file));
        return file;
    }

    public static X509Certificate certificate(Path keystore) throws Exception {
        KeyStore ks = load(keystore);
        return (X509Certificate) ks.getCertificate(ks.aliases().nextElement());
    }

    public static KeyStore load(Path keystore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    /** A PKCS12 truststore holding the given certificates (a server's, to trust a client's self-signed one). */
    public Path truststore(String name, X509Certificate... trusted) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        for (int i = 0; i < trusted.length; i++) {
            ks.setCertificateEntry("trusted" + i, trusted[i]);
        }
        Path file = dir.resolve(name + ".p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            ks.store(out, PASSWORD.toCharArray());
        }
        return file;
    }

    /**
     * A fresh client context (no cached sessions, so every connection does a full handshake) that trusts every server
     * certificate made here, presenting {@code clientKeystore}'s key when asked (may be {@code null}).
     */
    public SSLContext clientContext(Path clientKeystore) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        for (int i = 0; i < serverCertificates.size(); i++) {
            trust.setCertificateEntry("server" + i, serverCertificates.get(i));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (clientKeystore != null) {
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(clientKeystore), PASSWORD.toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    /** A host configuration named {@code name} serving the key in {@code keystore}. */
    public static SSLHostConfig host(String name, Path keystore) {
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

    /** A handshaken client connection to 127.0.0.1:{@code port}, asking for {@code sni} when it is not null. */
    public static SSLSocket connect(int port, SSLContext ctx, String sni, int soTimeoutMillis) throws IOException {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket();
        s.setTcpNoDelay(true); // the client's Finished and its request must not wait for a delayed ACK
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

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool failed: " + command + "\n" + new String(output, StandardCharsets.UTF_8));
        }
    }
}
