package io.hybridconnector.experiments;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import jakarta.servlet.Servlet;

/**
 * The Jetty 12 peer, in its own JVM: the samples' {@code SizeServlet}, {@code MixServlet}, {@code FixedSizeServlet},
 * and for the fairness cell {@code ComputeServlet} and {@code BlockServlet} (the same classes the Tomcat WAR runs, loaded from its {@code WEB-INF/classes} on the class path) under
 * {@code /samples}. The settings are the baseline's (anchors/baseline-stock-connectors.md): a 200-thread pool,
 * 1 acceptor, 1 selector, a backlog of 1024. Runs on the main thread until killed.
 *
 * <p>Usage: {@code JettyMain ADDRESS PORT}
 */
public final class JettyMain {

    private JettyMain() {
    }

    public static void main(String[] args) throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool(200);
        pool.setName("jetty-pool");
        Server server = new Server(pool);
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost(args[0]);
        connector.setPort(Integer.parseInt(args[1]));
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/samples");
        context.addServlet(servlet("io.hybridconnector.samples.SizeServlet"), "/size");
        context.addServlet(servlet("io.hybridconnector.samples.MixServlet"), "/mix");
        context.addServlet(servlet("io.hybridconnector.samples.FixedSizeServlet"), "/fixed");
        context.addServlet(servlet("io.hybridconnector.samples.ComputeServlet"), "/compute");
        context.addServlet(servlet("io.hybridconnector.samples.BlockServlet"), "/block");
        server.setHandler(context);
        server.start();
        System.out.println("JettyMain: serving " + args[0] + ":" + args[1] + " with Jetty " + Server.getVersion());
        server.join();
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Servlet> servlet(String name) throws ClassNotFoundException {
        return (Class<? extends Servlet>) Class.forName(name);
    }
}
