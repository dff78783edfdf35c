package io.hybridconnector.tls;

import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;

import org.apache.tomcat.util.net.SSLHostConfig;
import org.apache.tomcat.util.net.SSLHostConfigCertificate;
import org.apache.tomcat.util.net.SSLHostConfigCertificate.Type;
import org.apache.tomcat.util.net.openssl.ciphers.Cipher;
import org.apache.tomcat.util.net.openssl.ciphers.SignatureScheme;
import org.junit.jupiter.api.Test;

/**
 * Which certificate answers a client when a host has several (RSA and EC): Tomcat 10.1.59's rule
 * ({@code AbstractJsseEndpoint.selectCertificate}), which {@link TlsEngineFactory#certificateFor} follows.
 */
class TlsEngineFactoryTest {

    private static final Cipher ECDSA = Cipher.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256;
    private static final Cipher RSA = Cipher.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256;

    private final SSLHostConfig host = new SSLHostConfig();
    private final SSLHostConfigCertificate rsa = new SSLHostConfigCertificate(host, Type.RSA);
    private final SSLHostConfigCertificate ec = new SSLHostConfigCertificate(host, Type.EC);

    TlsEngineFactoryTest() {
        host.addCertificate(rsa);
        host.addCertificate(ec);
        host.setCiphers("ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-GCM-SHA256"); // the server prefers RSA
    }

    private static ClientHello hello(List<Cipher> ciphers, List<String> protocols, List<SignatureScheme> schemes) {
        return new ClientHello(null, ciphers, null, protocols, null, schemes);
    }

    @Test
    void tls13ChoosesByTheClientsFirstSignatureScheme() {
        ClientHello h = hello(List.of(RSA), List.of("TLSv1.3", "TLSv1.2"),
                List.of(SignatureScheme.ecdsa_secp256r1_sha256, SignatureScheme.rsa_pss_rsae_sha256));
        assertSame(ec, TlsEngineFactory.certificateFor(host, h));
        host.setProtocols("TLSv1.2"); // TLS 1.3 not configured: by cipher suite
        assertSame(rsa, TlsEngineFactory.certificateFor(host, h));
    }

    @Test
    void tls12ChoosesByTheSharedCipherSuitesInTheClientsOrder() {
        ClientHello h = hello(List.of(ECDSA, RSA), List.of("TLSv1.2"), List.of());
        assertSame(ec, TlsEngineFactory.certificateFor(host, h));
    }

    @Test
    void honourCipherOrderChoosesInTheServersOrder() {
        host.setHonorCipherOrder(true);
        ClientHello h = hello(List.of(ECDSA, RSA), List.of("TLSv1.2"), List.of());
        assertSame(rsa, TlsEngineFactory.certificateFor(host, h));
    }

    @Test
    void aSuiteTheServerDoesNotOfferDoesNotChooseAndNoMatchGivesTheFirst() {
        host.setCiphers("ECDHE-RSA-AES128-GCM-SHA256");
        ClientHello h = hello(List.of(ECDSA, RSA), List.of("TLSv1.2"), List.of());
        assertSame(rsa, TlsEngineFactory.certificateFor(host, h)); // before the re-sync: ec, the client's first
        assertSame(rsa, TlsEngineFactory.certificateFor(host, ClientHello.UNPARSED));
    }
}
