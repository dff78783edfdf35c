package io.hybridconnector.bench.harness.load;

/** The server's bytes are not a well-framed HTTP/1.1 response; the connection cannot be reused. */
public final class HttpFramingException extends Exception {

    private static final long serialVersionUID = 1L;

    public HttpFramingException(String message) {
        super(message);
    }
}
