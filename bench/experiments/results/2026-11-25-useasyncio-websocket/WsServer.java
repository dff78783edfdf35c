import java.io.File;
import java.nio.file.Files;

import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.MessageHandler;
import jakarta.websocket.Session;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;

import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.websocket.server.Constants;
import org.apache.tomcat.websocket.server.WsSci;

/**
 * An embedded Tomcat 10.1 with one WebSocket endpoint, {@code /echo}, that sends every text message back with the
 * blocking basic remote, as most applications do. Args: protocol class, port, useAsyncIO. Prints READY when started.
 */
public class WsServer {

    public static class Echo extends Endpoint {
        @Override
        public void onOpen(Session session, EndpointConfig config) {
            session.addMessageHandler(String.class, (MessageHandler.Whole<String>) text -> {
                try {
                    session.getBasicRemote().sendText(text);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }

    public static void main(String[] args) throws Exception {
        File base = Files.createTempDirectory("ws-bench").toFile();
        base.deleteOnExit();
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.getAbsolutePath());
        Connector connector = new Connector(args[0]);
        connector.setPort(Integer.parseInt(args[1]));
        connector.setProperty("useAsyncIO", args[2]);
        connector.setProperty("maxKeepAliveRequests", "-1");
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context ctx = tomcat.addContext("", base.getAbsolutePath());
        ctx.addServletContainerInitializer(new WsSci(), null);
        // The WebSocket filter runs only for requests mapped to some servlet.
        Tomcat.addServlet(ctx, "default", new org.apache.catalina.servlets.DefaultServlet());
        ctx.addServletMappingDecoded("/", "default");
        ((org.apache.catalina.core.StandardContext) ctx).addApplicationLifecycleListener(new Listener()); // an instance: this source file is not on the webapp loader
        tomcat.start();
        System.out.println("READY " + connector.getLocalPort());
        tomcat.getServer().await();
    }

    /** Registers the endpoint once the WebSocket container exists. */
    public static class Listener implements jakarta.servlet.ServletContextListener {
        @Override
        public void contextInitialized(jakarta.servlet.ServletContextEvent sce) {
            ServerContainer sc = (ServerContainer) sce.getServletContext().getAttribute(Constants.SERVER_CONTAINER_SERVLET_CONTEXT_ATTRIBUTE);
            try {
                sc.addEndpoint(ServerEndpointConfig.Builder.create(Echo.class, "/echo").build());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
