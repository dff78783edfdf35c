package io.hybridconnector.rubbos.client.http;

import java.nio.charset.StandardCharsets;

/** A complete HTTP response: status and body. */
public record Response(int status, byte[] body) {

    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
