package io.hybridconnector.tls;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import javax.net.ssl.SSLParameters;

import org.apache.tomcat.util.compat.JreCompat;
import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;
import org.apache.tomcat.util.net.TLSClientHelloExtractor;
import org.apache.tomcat.util.net.openssl.ciphers.Group;
import org.apache.tomcat.util.net.openssl.ciphers.SignatureScheme;

/**
 * The TLS key-exchange groups and signature schemes of a client hello and of {@code <SSLHostConfig groups="...">},
 * which Tomcat added in 10.1.47 and 11.0.12 (with {@code Group}, {@code SignatureScheme} and the hello parser's
 * getters for them). On an older Tomcat this class is never loaded ({@link ClientHello#GROUPS_AND_SCHEMES} is false): the hello then
 * carries no groups or schemes, the JDK chooses the group, and a host with several certificates picks one by cipher
 * suite, as those releases do themselves. Stateless; any thread.
 */
@LoadedOnlyWith("org.apache.tomcat.util.net.openssl.ciphers.Group")
final class GroupsAndSchemes {

    private GroupsAndSchemes() {
    }

    static List<Group> offeredGroups(TLSClientHelloExtractor hello) {
        return hello.getClientSupportedGroups();
    }

    static List<SignatureScheme> offeredSchemes(TLSClientHelloExtractor hello) {
        return hello.getClientSignatureSchemes();
    }

    /** @return the host's configured groups for the log, or {@code null} when it leaves them to the JDK */
    static Object configuredGroups(SSLHostConfig host) {
        return host.getGroupList();
    }

    /**
     * Key-exchange groups, only where the JDK can set them (Java 20+): the configured ones the client offered (in
     * the client's order), all configured ones if the client listed none, the client's if none are configured.
     */
    static void setGroups(SSLParameters parameters, SSLHostConfig host, List<?> offered) {
        LinkedHashSet<Group> configured = host.getGroupList();
        if (!JreCompat.isJre20Available() || (configured == null && offered.isEmpty())) {
            return;
        }
        List<String> names = new ArrayList<>();
        if (configured == null || offered.isEmpty()) {
            for (Object g : configured == null ? offered : configured) {
                names.add(g.toString());
            }
        } else {
            for (Object g : offered) {
                if (configured.contains(g)) {
                    names.add(g.toString());
                }
            }
        }
        JreCompat.getInstance().setNamedGroupsMethod(parameters, names.toArray(new String[0]));
    }

    /** @return the first certificate that suits one of the client's signature schemes, in its order; else null */
    static SSLHostConfigCertificate bySignatureScheme(Set<SSLHostConfigCertificate> certificates, List<?> schemes) {
        for (Object scheme : schemes) {
            for (SSLHostConfigCertificate certificate : certificates) {
                if (certificate.getType().isCompatibleWith((SignatureScheme) scheme)) {
                    return certificate;
                }
            }
        }
        return null;
    }
}
