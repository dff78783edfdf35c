package io.hybridconnector.tls;

import java.util.Collections;
import java.util.List;
import java.util.Locale;

import org.apache.tomcat.util.net.TLSClientHelloExtractor;
import org.apache.tomcat.util.net.TLSClientHelloExtractor.ExtractorResult;
import org.apache.tomcat.util.net.openssl.ciphers.Cipher;

/**
 * What a client said in its TLS hello that chooses the server's engine: the SNI host name ({@code null}: the default
 * host), the cipher suites, the ALPN protocols ({@code null} when not parsed), the protocol versions, the key-exchange
 * groups and the signature schemes (Tomcat's {@code Group} and {@code SignatureScheme}; empty on a Tomcat older than
 * 10.1.47 or 11.0.12, which parses neither). Tomcat's {@code SecureNioChannel} passes the same six to
 * {@code createSSLEngine} (the last three through thread locals on Tomcat 10.1). Immutable; any thread.
 */
public record ClientHello(String sniHostName, List<Cipher> ciphers, List<String> applicationProtocols,
        List<String> protocols, List<?> groups, List<?> signatureSchemes) {

    /**
     * Whether the running Tomcat parses key-exchange groups and signature schemes (10.1.47, 11.0.12 and later): only
     * then is {@link GroupsAndSchemes} loaded. Probed by name, so that an older Tomcat never links that class.
     */
    static final boolean GROUPS_AND_SCHEMES = tomcatHas("org.apache.tomcat.util.net.openssl.ciphers.Group");

    /** A hello too large to parse within {@code sniParseLimit}: the default host answers it with its first certificate. */
    static final ClientHello UNPARSED = new ClientHello(null, Collections.emptyList(), null, Collections.emptyList(),
            Collections.emptyList(), Collections.emptyList());

    public ClientHello {
        ciphers = orEmpty(ciphers);
        protocols = orEmpty(protocols);
        groups = orEmpty(groups);
        signatureSchemes = orEmpty(signatureSchemes);
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? Collections.emptyList() : list;
    }

    /**
     * The hello's parts that choose the engine, from Tomcat's parser. As in Tomcat's {@code SecureNioChannel.processSNI}, ALPN is taken
     * only from a hello that carries SNI ({@code COMPLETE}).
     */
    static ClientHello of(TLSClientHelloExtractor hello) {
        boolean sni = hello.getResult() == ExtractorResult.COMPLETE;
        String host = sni ? hello.getSNIValue() : null;
        host = host == null || host.isEmpty() ? null : host.toLowerCase(Locale.ENGLISH);
        return new ClientHello(host, hello.getClientRequestedCiphers(),
                sni ? hello.getClientRequestedApplicationProtocols() : null, hello.getClientRequestedProtocols(),
                GROUPS_AND_SCHEMES ? GroupsAndSchemes.offeredGroups(hello) : null,
                GROUPS_AND_SCHEMES ? GroupsAndSchemes.offeredSchemes(hello) : null);
    }

    private static boolean tomcatHas(String className) {
        try {
            Class.forName(className, false, TLSClientHelloExtractor.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
