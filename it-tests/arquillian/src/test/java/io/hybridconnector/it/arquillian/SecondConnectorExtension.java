package io.hybridconnector.it.arquillian;

import java.lang.annotation.Annotation;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.catalina.Engine;
import org.apache.catalina.Service;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.jboss.arquillian.config.descriptor.api.ArquillianDescriptor;
import org.jboss.arquillian.config.descriptor.api.ExtensionDef;
import org.jboss.arquillian.container.spi.event.container.AfterDeploy;
import org.jboss.arquillian.core.api.Instance;
import org.jboss.arquillian.core.api.annotation.Inject;
import org.jboss.arquillian.core.api.annotation.Observes;
import org.jboss.arquillian.core.spi.LoadableExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.arquillian.test.spi.enricher.resource.ResourceProvider;

/**
 * Puts a second HTTP connector, with the protocol class named in {@code arquillian.xml}, into the embedded Tomcat
 * that the Arquillian Tomcat adapter starts, beside the adapter's own (stock NIO) connector. The adapter has no
 * setting for the protocol; Tomcat's {@link Service#addConnector} does, and leaves the deployed WAR untouched.
 * <pre>
 * &lt;extension qualifier="second-connector"&gt;
 *   &lt;property name="protocol"&gt;io.hybridconnector.HybridHttp11Protocol&lt;/property&gt;  required
 *   &lt;property name="address"&gt;127.0.0.1&lt;/property&gt;                               default 127.0.0.1
 *   &lt;property name="port"&gt;0&lt;/property&gt;                                           default 0: a free port
 * &lt;/extension&gt;
 * </pre>
 * Tests get the deployment's URL through each connector by {@code @ArquillianResource ConnectorUrls}.
 * <p>
 * Arquillian calls everything here on the thread that runs the test class (client side, same JVM as Tomcat).
 */
public class SecondConnectorExtension implements LoadableExtension {

    static final String QUALIFIER = "second-connector";

    @Override
    public void register(ExtensionBuilder builder) {
        builder.observer(AddConnector.class).service(ResourceProvider.class, UrlsProvider.class);
    }

    /** After the adapter deployed the WAR (its context is known only from then on), adds the connector once. */
    public static class AddConnector {

        @Inject
        private Instance<ArquillianDescriptor> descriptor;
        @Inject
        private Instance<StandardContext> context;

        public void addOnce(@Observes AfterDeploy event) throws Exception {
            Map<String, String> config = configuration(descriptor.get());
            String protocol = config.get("protocol");
            if (protocol == null || protocol.isBlank()) {
                throw new IllegalStateException("arquillian.xml: extension '" + QUALIFIER + "' needs a 'protocol'");
            }
            StandardContext deployed = context.get();
            // The adapter logs a WAR that failed to start and carries on; a test would then only see 404s.
            if (deployed == null || !deployed.getState().isAvailable()) {
                throw new IllegalStateException("the deployment did not start: " +
                        (deployed == null ? "no context" : deployed.getName() + " is " + deployed.getState()));
            }
            Service service = serviceOf(deployed);
            for (Connector existing : service.findConnectors()) {
                if (existing.getProtocolHandlerClassName().equals(protocol)) {
                    return;
                }
            }
            Connector connector = new Connector(protocol);
            connector.setPort(Integer.parseInt(config.getOrDefault("port", "0")));
            connector.setProperty("address", config.getOrDefault("address", "127.0.0.1"));
            service.addConnector(connector); // the service is started: this starts the connector too
            if (connector.getLocalPort() <= 0) {
                throw new IllegalStateException("connector " + protocol + " did not start: " + connector.getState());
            }
        }

        private static Map<String, String> configuration(ArquillianDescriptor descriptor) {
            for (ExtensionDef extension : descriptor.getExtensions()) {
                if (QUALIFIER.equals(extension.getExtensionName())) {
                    return extension.getExtensionProperties();
                }
            }
            return Map.of();
        }
    }

    /** Answers {@code @ArquillianResource ConnectorUrls} with the local port of every started connector. */
    public static class UrlsProvider implements ResourceProvider {

        @Inject
        private Instance<StandardContext> context;

        @Override
        public boolean canProvide(Class<?> type) {
            return type == ConnectorUrls.class;
        }

        @Override
        public Object lookup(ArquillianResource resource, Annotation... qualifiers) {
            StandardContext ctx = context.get();
            if (ctx == null) {
                throw new IllegalStateException("no deployment: ConnectorUrls exist only while a WAR is deployed");
            }
            Map<String, URI> urls = new LinkedHashMap<>();
            for (Connector connector : serviceOf(ctx).findConnectors()) {
                if (connector.getLocalPort() > 0) {
                    urls.put(connector.getProtocolHandlerClassName(),
                            URI.create("http://127.0.0.1:" + connector.getLocalPort() + ctx.getPath() + "/"));
                }
            }
            return new ConnectorUrls(urls);
        }
    }

    private static Service serviceOf(StandardContext context) {
        return ((Engine) context.getParent().getParent()).getService();
    }
}
