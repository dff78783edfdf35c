package io.hybridconnector.tls;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Function;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;
import org.apache.tomcat.util.net.Constants;
import org.apache.tomcat.util.net.SSLContext;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;
import org.apache.tomcat.util.net.SSLImplementation;
import org.apache.tomcat.util.net.SSLUtil;
import org.apache.tomcat.util.net.SSLUtilBase;
import org.apache.tomcat.util.net.openssl.ciphers.Cipher;

/**
 * Creates the {@link SSLEngine} of each accepted TLS connection from the connector's {@code <SSLHostConfig>}s, and
 * the {@link SSLContext}s those engines come from (one per {@code <Certificate>}, made by the configured
 * {@link SSLImplementation}, JSSE by default).
 * <p>
 * <b>Follows Tomcat 10.1.59</b> {@code org/apache/tomcat/util/net/AbstractJsseEndpoint.java}: {@code initialiseSsl}
 * ({@link #start}), {@code createSSLContext} ({@link #createContexts}), {@code createSSLEngine} ({@link #create}),
 * {@code selectCertificate} ({@link #certificateFor}), and {@code AbstractEndpoint.destroySsl}/{@code releaseSSLContext}
 * ({@link #stop}, {@link #release}). Tomcat 11.0.25 has the same rules in {@code AbstractEndpoint} (it merged
 * {@code AbstractJsseEndpoint} into it) and passes the hello's protocols, groups and signature schemes as arguments
 * instead of 10.1's thread locals; no difference in behaviour. Re-synced with both on 2026-11-25 (added then: the
 * certificate chosen by TLS 1.3 signature scheme and by the server's cipher list, key-exchange groups, the certificate
 * line in the log, release of a rejected host configuration's contexts). Differs on purpose:
 * <ul>
 * <li>Generated contexts are kept here, by certificate (weakly), not in the certificate: its setter
 * ({@code setSslContextGenerated}) is package-private. A context the application provided
 * ({@code SSLHostConfigCertificate.setSslContext}) is used as it is, as in Tomcat.</li>
 * <li>So Tomcat's {@code logCertificate} is not called (its debug branch reads the context from the certificate): our
 * own INFO line says the same (connector, host, certificate type, where it came from, trust store).</li>
 * <li>Messages are our own words; Tomcat's come from its resource bundle.</li>
 * <li>The connector extends {@code AbstractEndpoint}, not {@code AbstractJsseEndpoint} (gone in 11): one jar runs on
 * both, so this code lives here instead of being inherited.</li>
 * </ul>
 * <p>
 * Threads: {@link #start}, {@link #stop} on Tomcat's lifecycle thread; {@link #createContexts}, {@link #release} there
 * or on the thread that adds or reloads a host configuration; {@link #create} on any connection's owner thread,
 * concurrently (it reads only the host configurations and a synchronized map).
 */
public final class TlsEngineFactory implements EngineFactory {

    private static final Log log = LogFactory.getLog(TlsEngineFactory.class);

    /** The endpoint's host lookup: the configuration for an SNI host name, the default one for {@code null}. */
    private final Function<String,SSLHostConfig> hosts;
    /** ALPN protocols the {@code <UpgradeProtocol>}s registered with the endpoint (its live list). */
    private final List<String> negotiableProtocols;
    private volatile SSLImplementation implementation;
    private volatile String connectorName = "";
    /**
     * The contexts made here, by certificate. Weak: a replaced host configuration's contexts live as long as the
     * connections that use them (Tomcat leaves them to the garbage collector too).
     */
    private final Map<SSLHostConfigCertificate,SSLContext> generated = Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * @param hosts               the endpoint's {@code getSSLHostConfig}
     * @param negotiableProtocols the endpoint's {@code negotiableProtocols}, read when contexts and engines are made
     */
    public TlsEngineFactory(Function<String,SSLHostConfig> hosts, List<String> negotiableProtocols) {
        this.hosts = hosts;
        this.negotiableProtocols = negotiableProtocols;
    }

    /**
     * At bind: loads the implementation and makes every host configuration's contexts; fails if the default host
     * name has no configuration. A wrong keystore or password fails here, before the port is taken.
     */
    public void start(String implementationName, Map<String,SSLHostConfig> configs, String defaultHostName,
            String connector) {
        connectorName = connector;
        try {
            implementation = SSLImplementation.getInstance(implementationName);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("sslImplementationName=\"" + implementationName + "\": class not found",
                    e);
        }
        for (SSLHostConfig config : configs.values()) {
            createContexts(config);
        }
        if (configs.get(defaultHostName) == null) {
            throw new IllegalArgumentException("SSLEnabled=\"true\" but no SSLHostConfig for the default host name [" +
                    defaultHostName + "] on connector [" + connector + "]");
        }
    }

    /** @return the implementation in use once started, else {@code null} */
    public SSLImplementation implementation() {
        return implementation;
    }

    /**
     * Makes (again, on reload) the contexts of one host configuration, and sets its effective protocols and ciphers
     * as the implementation resolves them. Connections already open keep the engine, so the context, they started
     * with; new ones get the new context. Before {@link #start}: nothing (start makes them).
     */
    public void createContexts(SSLHostConfig config) {
        SSLImplementation impl = implementation;
        if (impl == null) {
            return;
        }
        if (ClientHello.GROUPS_AND_SCHEMES && log.isDebugEnabled()
                && GroupsAndSchemes.configuredGroups(config) != null) {
            log.debug("TLS host [" + config.getHostName() + "]: key-exchange groups "
                    + GroupsAndSchemes.configuredGroups(config));
        }
        boolean first = true;
        for (SSLHostConfigCertificate certificate : config.getCertificates(true)) {
            SSLUtil util = impl.getSSLUtil(certificate);
            if (first) {
                config.setEnabledProtocols(util.getEnabledProtocols());
                config.setEnabledCiphers(util.getEnabledCiphers());
                first = false;
            }
            if (certificate.getSslContext() == null) { // else provided by the application: used as it is
                generate(config, certificate, util);
            }
            logCertificate(config, certificate);
        }
    }

    private void generate(SSLHostConfig config, SSLHostConfigCertificate certificate, SSLUtil util) {
        SSLContext context;
        try {
            context = util.createSSLContext(negotiableProtocols);
        } catch (Exception e) {
            throw new IllegalArgumentException("Could not create the TLS context of SSLHostConfig [" +
                    config.getHostName() + "]: " + e.getMessage(), e);
        }
        SSLContext previous = generated.put(certificate, context);
        if (previous != null && log.isDebugEnabled()) {
            log.debug("Reloaded the TLS context of [" + config.getHostName() + "] on [" + connectorName +
                    "]; open connections keep the previous one");
        }
    }

    private void logCertificate(SSLHostConfig config, SSLHostConfigCertificate certificate) {
        String source;
        if (certificate.getCertificateFile() != null) {
            source = "key [" + certificate.getCertificateKeyFile() + "], certificate [" +
                    certificate.getCertificateFile() + "] and chain [" + certificate.getCertificateChainFile() + "]";
        } else {
            String alias = certificate.getCertificateKeyAlias();
            source = "keystore [" + certificate.getCertificateKeystoreFile() + "] with alias [" +
                    (alias == null ? SSLUtilBase.DEFAULT_KEY_ALIAS : alias) + "]";
        }
        String trust = config.getTruststoreFile();
        if (trust == null) {
            trust = config.getCaCertificateFile() != null ? config.getCaCertificateFile() :
                    config.getCaCertificatePath();
        }
        log.info("Connector [" + connectorName + "], TLS host [" + config.getHostName() + "], certificate type [" +
                certificate.getType() + "] from " + source + ", trust store [" + trust + "]");
    }

    /** Destroys the contexts made for one host configuration (Tomcat's {@code releaseSSLContext}). */
    public void release(SSLHostConfig config) {
        for (SSLHostConfigCertificate certificate : config.getCertificates()) {
            destroy(generated.remove(certificate));
        }
    }

    /** At unbind: destroys every context made here and forgets the implementation. */
    public void stop() {
        synchronized (generated) {
            for (SSLContext context : generated.values()) {
                destroy(context);
            }
            generated.clear();
        }
        implementation = null;
    }

    private static void destroy(SSLContext context) {
        if (context == null) {
            return;
        }
        try {
            context.destroy();
        } catch (RuntimeException e) {
            log.debug("Could not destroy a TLS context", e);
        }
    }

    /**
     * The server engine for one connection: the host configuration for the SNI host name, the certificate that suits
     * the client ({@link #certificateFor}), the host's protocols, ciphers and cipher order, ALPN with the protocols
     * both sides offer ({@code h2} when HTTP/2 is configured; {@code http/1.1} is never negotiated explicitly, as in
     * Tomcat), key-exchange groups (Java 20 and later, Tomcat 10.1.47 and 11.0.12 or later), and client certificate verification.
     */
    @Override
    public SSLEngine create(ClientHello hello) {
        SSLHostConfig host = hosts.apply(hello.sniHostName());
        SSLHostConfigCertificate certificate = certificateFor(host, hello);
        SSLContext context = certificate.getSslContext();
        if (context == null) {
            context = generated.get(certificate);
        }
        if (context == null) {
            throw new IllegalStateException("No TLS context for SSLHostConfig [" + host.getHostName() + "]");
        }
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        engine.setEnabledCipherSuites(host.getEnabledCiphers());
        engine.setEnabledProtocols(host.getEnabledProtocols());
        SSLParameters parameters = engine.getSSLParameters(); // a copy: set back below
        parameters.setUseCipherSuitesOrder(host.getHonorCipherOrder());
        String[] alpn = commonApplicationProtocols(hello.applicationProtocols());
        if (alpn != null) {
            parameters.setApplicationProtocols(alpn);
        }
        if (ClientHello.GROUPS_AND_SCHEMES) {
            GroupsAndSchemes.setGroups(parameters, host, hello.groups());
        }
        setClientAuth(parameters, host.getCertificateVerification());
        engine.setSSLParameters(parameters);
        return engine;
    }

    /** @return the server's ALPN protocols the client offered too, in the server's order; {@code null} if none */
    private String[] commonApplicationProtocols(List<String> offered) {
        if (offered == null || offered.isEmpty() || negotiableProtocols.isEmpty()) {
            return null;
        }
        List<String> common = new ArrayList<>(negotiableProtocols);
        common.retainAll(offered);
        return common.isEmpty() ? null : common.toArray(new String[0]);
    }

    private static void setClientAuth(SSLParameters parameters, SSLHostConfig.CertificateVerification verification) {
        switch (verification) {
            case REQUIRED:
                parameters.setNeedClientAuth(true);
                break;
            case OPTIONAL:
            case OPTIONAL_NO_CA:
                parameters.setWantClientAuth(true);
                break;
            default: // NONE
                parameters.setNeedClientAuth(false);
                parameters.setWantClientAuth(false);
        }
    }

    /**
     * With several certificates (RSA and EC, say), Tomcat's rule: under TLS 1.3 (offered by the client and configured)
     * the first certificate that suits one of the client's signature schemes, in the client's order; otherwise the
     * first that suits a cipher suite both sides have, in the server's order when it honours its cipher order, else in
     * the client's; with no match the first certificate (the handshake then fails on its own).
     */
    static SSLHostConfigCertificate certificateFor(SSLHostConfig host, ClientHello hello) {
        Set<SSLHostConfigCertificate> certificates = host.getCertificates(true);
        Iterator<SSLHostConfigCertificate> it = certificates.iterator();
        SSLHostConfigCertificate first = it.next();
        if (certificates.size() == 1) {
            return first;
        }
        if (hello.protocols().contains(Constants.SSL_PROTO_TLSv1_3) &&
                host.getProtocols().contains(Constants.SSL_PROTO_TLSv1_3)) {
            SSLHostConfigCertificate byScheme = hello.signatureSchemes().isEmpty() ? null :
                    GroupsAndSchemes.bySignatureScheme(certificates, hello.signatureSchemes());
            if (byScheme != null) {
                return byScheme;
            }
        }
        for (Cipher cipher : sharedCiphers(host, hello.ciphers())) {
            for (SSLHostConfigCertificate certificate : certificates) {
                if (certificate.getType().isCompatibleWith(cipher.getAu())) {
                    return certificate;
                }
            }
        }
        return first;
    }

    private static List<Cipher> sharedCiphers(SSLHostConfig host, List<Cipher> offered) {
        List<Cipher> shared;
        if (host.getHonorCipherOrder()) {
            shared = new ArrayList<>(host.getCipherList());
            shared.retainAll(offered);
        } else {
            shared = new ArrayList<>(offered);
            shared.retainAll(host.getCipherList());
        }
        return shared;
    }
}
