package io.hybridconnector.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.CompletionHandler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.hybridconnector.H2Client;

import jakarta.servlet.http.WebConnection;
import jakarta.websocket.ClientEndpointConfig;
import jakarta.websocket.CloseReason;
import jakarta.websocket.CloseReason.CloseCodes;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.PongMessage;
import jakarta.websocket.Session;
import jakarta.websocket.server.ServerEndpointConfig;

import org.apache.tomcat.websocket.WsWebSocketContainer;

import org.apache.coyote.Adapter;
import org.apache.coyote.Processor;
import org.apache.coyote.Request;
import org.apache.coyote.UpgradeProtocol;
import org.apache.coyote.http11.upgrade.InternalHttpUpgradeHandler;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.net.AbstractEndpoint.Handler.SocketState;
import org.apache.tomcat.util.net.SSLSupport;
import org.apache.tomcat.util.net.SocketEvent;
import org.apache.tomcat.util.net.SocketWrapperBase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tomcat's asynchronous socket API ({@code SocketWrapperBase.read/write(..., CompletionHandler)}) and the attribute
 * that turns it on for HTTP/2 ({@code useAsyncIO}), on stock NIO and ours with one test body each: an internal
 * upgrade handler that echoes through the completion-handler API, and h2c by prior knowledge with many concurrent
 * streams, an upload larger than the server's flow-control window and a reset stream, with {@code useAsyncIO} true and
 * false.
 */
class AsyncIoParityTest {

    // ------------------------------------------------------------------ internal upgrade handler

    /**
     * Ours failed here before it offered the API: {@code NullPointerException: "this.readPending" is null} in
     * {@code SocketWrapperBase.vectoredOperation}, and the client never got its echo. Both connectors run in one test
     * body and ours must lose no echo; stock NIO's failures are printed beside, not asserted (one 5 B - 4 MB round
     * in the first runs timed out on stock, never on ours).
     */
    @org.junit.jupiter.api.Test
    void internalUpgradeHandlerEchoesThroughCompletionHandlers() throws Exception {
        List<String> stock = echoFailures(ConnectorUnderTest.STOCK_NIO);
        List<String> ours = echoFailures(ConnectorUnderTest.HYBRID);
        System.out.printf("internal upgrade echoes failed: stock NIO %d %s, ours %d %s%n", stock.size(), stock,
                ours.size(), ours);
        assertEquals(List.of(), ours, "ours");
    }

    private static List<String> echoFailures(ConnectorUnderTest which) throws Exception {
        List<String> failures = new ArrayList<>();
        try (SamplesServer server = new SamplesServer(which, Map.of(),
                connector -> connector.addUpgradeProtocol(new EchoUpgradeProtocol()))) {
            for (int round = 0; round < 3; round++) {
                for (int size : new int[] { 5, 64 * 1024, 4 << 20 }) {
                    try {
                        echoOnce(server, size);
                    } catch (IOException | AssertionError e) {
                        failures.add(size + " B, round " + round + ": " + e);
                    }
                }
            }
        }
        return failures;
    }

    private static void echoOnce(SamplesServer server, int size) throws Exception {
        try (Socket s = server.connect()) {
            s.setSoTimeout(10000);
            OutputStream out = s.getOutputStream();
            out.write(("GET /samples/ HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            String head = readHead(in);
            assertTrue(head.startsWith("HTTP/1.1 101"), head);
            byte[] sent = new byte[size];
            new Random(size).nextBytes(sent);
            // The client writes while it reads: a large echo fills both directions' socket buffers, so the server's
            // writes wait for writability and its reads for data.
            AtomicReference<IOException> writeFailure = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    for (int at = 0; at < size; at += 8192) {
                        out.write(sent, at, Math.min(8192, size - at));
                    }
                    out.flush();
                } catch (IOException e) {
                    writeFailure.set(e);
                }
            }, "echo-client-writer");
            writer.start();
            byte[] echoed = in.readNBytes(size);
            writer.join(30000);
            assertEquals(null, writeFailure.get(), "writing");
            assertEquals(size, echoed.length, "echoed bytes");
            assertArrayEquals(sent, echoed, size + " bytes echoed");
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed in the response head: " + head);
            }
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1
                    : 0;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** {@code Upgrade: echo}, handled inside Tomcat's connector by {@link EchoHandler}. */
    static final class EchoUpgradeProtocol implements UpgradeProtocol {

        @Override
        public String getHttpUpgradeName(boolean isSSLEnabled) {
            return "echo";
        }

        @Override
        public byte[] getAlpnIdentifier() {
            return null;
        }

        @Override
        public String getAlpnName() {
            return null;
        }

        @Override
        public Processor getProcessor(SocketWrapperBase<?> socketWrapper, Adapter adapter) {
            return null;
        }

        @Override
        public InternalHttpUpgradeHandler getInternalUpgradeHandler(SocketWrapperBase<?> socketWrapper,
                Adapter adapter, Request request) {
            return new EchoHandler(socketWrapper);
        }

        @Override
        public boolean accept(Request request) {
            return true;
        }
    }

    /**
     * Reads what arrives and writes it back, only through the completion-handler API: a read's handler starts the
     * write, the write's handler the next read. The handler starts all I/O itself ({@link #hasAsyncIO}).
     */
    static final class EchoHandler implements InternalHttpUpgradeHandler {

        private final ByteBuffer buffer = ByteBuffer.allocate(16384);
        private volatile SocketWrapperBase<?> socket;

        EchoHandler(SocketWrapperBase<?> socket) {
            this.socket = socket;
        }

        @Override
        public void init(WebConnection connection) {
            read();
        }

        private void read() {
            buffer.clear();
            socket.read(20, TimeUnit.SECONDS, null, new CompletionHandler<Long,Void>() {
                @Override
                public void completed(Long n, Void attachment) {
                    if (n.longValue() < 0) {
                        socket.close();
                        return;
                    }
                    buffer.flip();
                    write();
                }

                @Override
                public void failed(Throwable t, Void attachment) {
                    socket.close();
                }
            }, buffer);
        }

        private void write() {
            socket.write(SocketWrapperBase.BlockingMode.NON_BLOCK, 20, TimeUnit.SECONDS, null,
                    SocketWrapperBase.COMPLETE_WRITE_WITH_COMPLETION, new CompletionHandler<Long,Void>() {
                        @Override
                        public void completed(Long n, Void attachment) {
                            read();
                        }

                        @Override
                        public void failed(Throwable t, Void attachment) {
                            socket.close();
                        }
                    }, buffer);
        }

        @Override
        public boolean hasAsyncIO() {
            return true;
        }

        @Override
        public SocketState upgradeDispatch(SocketEvent status) {
            return status == SocketEvent.OPEN_READ || status == SocketEvent.OPEN_WRITE ? SocketState.ASYNC_IO :
                    SocketState.CLOSED;
        }

        @Override
        public void timeoutAsync(long now) {
        }

        @Override
        public void setSocketWrapper(SocketWrapperBase<?> wrapper) {
            this.socket = wrapper;
        }

        @Override
        public void setSslSupport(SSLSupport sslSupport) {
        }

        @Override
        public void pause() {
        }

        @Override
        public void destroy() {
        }
    }

    // ------------------------------------------------------------------ HTTP/2 with useAsyncIO true and false

    @ParameterizedTest
    @CsvSource({ "STOCK_NIO, true", "STOCK_NIO, false", "HYBRID, true", "HYBRID, false" })
    void http2StreamsFlowControlAndResetOnBothIoModes(ConnectorUnderTest which, boolean useAsyncIO)
            throws Exception {
        try (SamplesServer server = new SamplesServer(which, Map.of("useAsyncIO", Boolean.toString(useAsyncIO)),
                connector -> connector.addUpgradeProtocol(new Http2Protocol()))) {
            String what = which + " useAsyncIO=" + useAsyncIO;
            try (Socket s = server.connect(); H2Client client = H2Client.priorKnowledge(s)) {
                for (int round = 0; round < 3; round++) {
                    // Many concurrent streams on one connection (Tomcat's default limit is 100).
                    List<H2Client.Response> responses = new ArrayList<>();
                    for (int i = 0; i < 80; i++) {
                        responses.add(client.startGet("/samples/size?kb=" + (i % 2 == 0 ? "0.1" : "20")));
                    }
                    for (int i = 0; i < responses.size(); i++) {
                        H2Client.Response r = client.await(responses.get(i));
                        assertEquals(200, r.status, what + ": stream " + r.streamId);
                        assertEquals(i % 2 == 0 ? 102 : 20 * 1024, r.body().length, what + ": stream " + r.streamId);
                    }
                    // An upload four times the server's initial window (65,535): it leaves only as the server's
                    // WINDOW_UPDATEs allow.
                    byte[] body = new byte[256 * 1024 + round];
                    new Random(round).nextBytes(body);
                    H2Client.Response echo = client.post("/samples/echo", body);
                    assertEquals(200, echo.status, what + ": echo");
                    assertArrayEquals(body, echo.body(), what + ": echoed upload");
                    // A stream the client cancels in the middle of its body: the connection goes on serving.
                    H2Client.Response cancelled = client.startPost("/samples/echo", new byte[1000], 100_000);
                    client.reset(cancelled, 8);
                    H2Client.Response after = client.await(client.startGet("/samples/size?kb=1"));
                    assertEquals(200, after.status, what + ": a stream after the reset");
                    assertEquals(1024, after.body().length, what + ": a stream after the reset");
                }
            }
        }
    }

    // ------------------------------------------------------------------ WebSocket with useAsyncIO true and false

    /** Closes the server endpoints saw, in order. */
    private static final BlockingQueue<CloseReason> SERVER_CLOSES = new LinkedBlockingQueue<>();

    @ParameterizedTest
    @CsvSource({ "STOCK_NIO, true", "STOCK_NIO, false", "HYBRID, true", "HYBRID, false" })
    void webSocketEchoPingAndCloseOnBothIoModes(ConnectorUnderTest which, boolean useAsyncIO) throws Exception {
        String what = which + " useAsyncIO=" + useAsyncIO;
        SERVER_CLOSES.clear();
        try (SamplesServer server = new SamplesServer(which, Map.of("useAsyncIO", Boolean.toString(useAsyncIO)))) {
            server.addWebSocketContext("/ws", ServerEndpointConfig.Builder.create(ServerEcho.class, "/echo").build(),
                    sc -> {
                        sc.setDefaultMaxBinaryMessageBufferSize(1 << 20);
                        sc.setDefaultMaxTextMessageBufferSize(1 << 20);
                    });
            WsWebSocketContainer container = new WsWebSocketContainer();
            container.setDefaultMaxBinaryMessageBufferSize(1 << 20);
            container.setDefaultMaxTextMessageBufferSize(1 << 20);
            try {
                URI uri = URI.create("ws://127.0.0.1:" + server.port + "/ws/echo");
                // Echo: text of several sizes and a binary message larger than the socket buffers.
                ClientEnd client = new ClientEnd();
                Session session = container.connectToServer(client, ClientEndpointConfig.Builder.create().build(), uri);
                for (int i = 0; i < 50; i++) {
                    String text = "message " + i + " " + "x".repeat(i * 100);
                    session.getBasicRemote().sendText(text);
                    assertEquals(text, client.messages.poll(10, TimeUnit.SECONDS), what + ": text echo " + i);
                }
                byte[] big = new byte[512 * 1024];
                new Random(7).nextBytes(big);
                session.getBasicRemote().sendBinary(ByteBuffer.wrap(big));
                Object echoed = client.messages.poll(20, TimeUnit.SECONDS);
                assertTrue(echoed instanceof byte[], what + ": binary echo " + echoed);
                assertArrayEquals(big, (byte[]) echoed, what + ": binary echo");
                // Ping: the server's container answers with a pong carrying the same payload.
                session.getBasicRemote().sendPing(ByteBuffer.wrap("are you there".getBytes(StandardCharsets.UTF_8)));
                assertEquals("pong:are you there", client.messages.poll(10, TimeUnit.SECONDS), what + ": pong");
                // Close from the client: both ends see a normal closure.
                session.close(new CloseReason(CloseCodes.NORMAL_CLOSURE, "bye"));
                CloseReason atServer = SERVER_CLOSES.poll(10, TimeUnit.SECONDS);
                assertEquals(CloseCodes.NORMAL_CLOSURE, atServer == null ? null : atServer.getCloseCode(),
                        what + ": close at the server " + atServer);
                // Close from the server, asked for by a message: the client sees its code and reason.
                ClientEnd second = new ClientEnd();
                Session other = container.connectToServer(second, ClientEndpointConfig.Builder.create().build(), uri);
                other.getBasicRemote().sendText("close me");
                CloseReason atClient = second.closed.poll(10, TimeUnit.SECONDS);
                assertEquals(CloseCodes.GOING_AWAY, atClient == null ? null : atClient.getCloseCode(),
                        what + ": close from the server " + atClient);
                assertEquals("asked", atClient.getReasonPhrase(), what);
            } finally {
                container.destroy();
            }
        }
    }

    /** Echoes text and binary messages; {@code close me} closes the session from the server (1001, "asked"). */
    public static final class ServerEcho extends Endpoint {

        @Override
        public void onOpen(Session session, EndpointConfig config) {
            session.addMessageHandler(String.class, text -> {
                try {
                    if (text.equals("close me")) {
                        session.close(new CloseReason(CloseCodes.GOING_AWAY, "asked"));
                    } else {
                        session.getBasicRemote().sendText(text);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            session.addMessageHandler(ByteBuffer.class, bytes -> {
                try {
                    session.getBasicRemote().sendBinary(bytes);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }

        @Override
        public void onClose(Session session, CloseReason closeReason) {
            SERVER_CLOSES.add(closeReason);
        }
    }

    /** Collects what arrives: text, binary as {@code byte[]}, pongs as {@code "pong:" + payload}; and the close. */
    static final class ClientEnd extends Endpoint {

        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final BlockingQueue<CloseReason> closed = new LinkedBlockingQueue<>();

        @Override
        public void onOpen(Session session, EndpointConfig config) {
            session.addMessageHandler(String.class, messages::add);
            session.addMessageHandler(ByteBuffer.class, bytes -> {
                byte[] b = new byte[bytes.remaining()];
                bytes.get(b);
                messages.add(b);
            });
            session.addMessageHandler(PongMessage.class, pong -> {
                ByteBuffer data = pong.getApplicationData();
                byte[] b = new byte[data.remaining()];
                data.get(b);
                messages.add("pong:" + new String(b, StandardCharsets.UTF_8));
            });
        }

        @Override
        public void onClose(Session session, CloseReason closeReason) {
            closed.add(closeReason);
        }
    }
}
