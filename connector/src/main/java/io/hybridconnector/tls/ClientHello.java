package io.hybridconnector.tls;

import java.util.Collections;
import java.util.List;

import org.apache.tomcat.util.net.openssl.ciphers.Cipher;
import org.apache.tomcat.util.net.openssl.ciphers.Group;
import org.apache.tomcat.util.net.openssl.ciphers.SignatureScheme;

/**
 * What a client said in its TLS hello that chooses the server's engine: the SNI host name ({@code null}: the default
 * host), the cipher suites, the ALPN protocols ({@code null} when not parsed), the protocol versions, the key-exchange
 * groups and the signature schemes. Tomcat's {@code SecureNioChannel} passes the same six to
 * {@code createSSLEngine} (the last three through thread locals on Tomcat 10.1). Immutable; any thread.
 */
public record ClientHello(String sniHostName, List<Cipher> ciphers, List<String> applicationProtocols,
        List<String> protocols, List<Group> groups, List<SignatureScheme> signatureSchemes) {

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
}
