package io.hybridconnector.tls;

import java.io.IOException;

/**
 * Thrown by {@link TlsChannel#handshake} when a client spoke plain HTTP to the TLS port: a 400 has been sent (or
 * tried); close the connection.
 */
public final class PlainTextRequestException extends IOException {
    private static final long serialVersionUID = 1L;

    PlainTextRequestException() {
        super("Plain HTTP request on a TLS port; answered 400");
    }
}
