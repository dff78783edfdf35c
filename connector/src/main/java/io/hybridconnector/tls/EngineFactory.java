package io.hybridconnector.tls;

import javax.net.ssl.SSLEngine;

/** Creates the server engine for what the client said in its hello ({@link TlsEngineFactory}); called by {@link TlsChannel}. */
@FunctionalInterface
public interface EngineFactory {
    SSLEngine create(ClientHello hello);
}
