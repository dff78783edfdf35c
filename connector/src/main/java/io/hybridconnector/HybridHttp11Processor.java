package io.hybridconnector;

import java.io.IOException;

import io.hybridconnector.endpoint.HybridSocketWrapper;

import org.apache.coyote.Adapter;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.apache.coyote.http11.Http11Processor;
import org.apache.tomcat.util.net.AbstractEndpoint.Handler.SocketState;
import org.apache.tomcat.util.net.SocketWrapperBase;

/**
 * Tomcat's HTTP/1.1 processor, telling the connection which request it serves: the write path classifies large
 * responses by their request's method, path and query, and Tomcat takes the processor off the connection while it runs.
 */
final class HybridHttp11Processor extends Http11Processor {

    HybridHttp11Processor(AbstractHttp11Protocol<?> protocol, Adapter adapter) {
        super(protocol, adapter);
    }

    @Override
    public SocketState service(SocketWrapperBase<?> socketWrapper) throws IOException {
        if (!(socketWrapper instanceof HybridSocketWrapper)) {
            return super.service(socketWrapper);
        }
        HybridSocketWrapper connection = (HybridSocketWrapper) socketWrapper;
        connection.serving(getRequest());
        SocketState state = super.service(socketWrapper);
        if (state == SocketState.UPGRADING) {
            connection.upgrading(); // HTTP/2 (by upgrade or prior knowledge), WebSocket: no HTTP/1.1 request follows
        }
        return state;
    }
}
