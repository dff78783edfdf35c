package io.hybridconnector.spring.boot;

import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.Consumer;

import org.apache.catalina.connector.Connector;

/**
 * The two calls the starter makes on Spring Boot's Tomcat web server factory, {@code setProtocol(String)} and
 * {@code addConnectorCustomizers(TomcatConnectorCustomizer...)}, made by name. Boot 4 moved the factory and its
 * customizer interface to new packages ({@code org.springframework.boot.web.embedded.tomcat} in 3.x,
 * {@code org.springframework.boot.tomcat} in 4.0) but kept both methods; calling them by name lets one starter jar
 * serve both lines instead of one jar per line. Runs on the thread that creates the web server, once per factory.
 */
final class BootTomcatFactory {

    private final Object factory;
    private final Method setProtocol;
    private final Method addConnectorCustomizers;

    private BootTomcatFactory(Object factory, Method setProtocol, Method addConnectorCustomizers) {
        this.factory = factory;
        this.setProtocol = setProtocol;
        this.addConnectorCustomizers = addConnectorCustomizers;
    }

    /** @return the factory's view, or {@code null} when {@code factory} does not build a Tomcat (Jetty, Netty, ...) */
    static BootTomcatFactory of(Object factory) {
        Method protocol = publicMethod(factory, "setProtocol", String.class);
        Method customizers = null;
        for (Method m : factory.getClass().getMethods()) {
            if (m.getName().equals("addConnectorCustomizers") && m.getParameterCount() == 1 &&
                    m.getParameterTypes()[0].isArray() && isConnectorCustomizer(m.getParameterTypes()[0].getComponentType())) {
                customizers = m;
            }
        }
        return protocol == null || customizers == null ? null : new BootTomcatFactory(factory, protocol, customizers);
    }

    /** The connector created from now on is an instance of {@code protocolClassName}. */
    void setProtocol(String protocolClassName) {
        invoke(setProtocol, protocolClassName);
    }

    /** {@code customizer} runs on each connector the factory creates, after the customizers Boot added before it. */
    void addConnectorCustomizer(Consumer<Connector> customizer) {
        Class<?> type = addConnectorCustomizers.getParameterTypes()[0].getComponentType();
        Object proxy = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> self == args[0];
                    case "hashCode" -> System.identityHashCode(self);
                    default -> "HybridConnectorCustomizer";
                };
            }
            customizer.accept((Connector) args[0]);
            return null;
        });
        Object array = Array.newInstance(type, 1);
        Array.set(array, 0, proxy);
        invoke(addConnectorCustomizers, array);
    }

    /** Boot's {@code TomcatConnectorCustomizer}: an interface whose one method takes a Catalina connector. */
    private static boolean isConnectorCustomizer(Class<?> type) {
        if (!type.isInterface() || !type.getSimpleName().equals("TomcatConnectorCustomizer")) {
            return false;
        }
        for (Method m : type.getMethods()) {
            if (m.getName().equals("customize") && m.getParameterCount() == 1 &&
                    m.getParameterTypes()[0] == Connector.class) {
                return true;
            }
        }
        return false;
    }

    private static Method publicMethod(Object target, String name, Class<?> parameter) {
        try {
            return target.getClass().getMethod(name, parameter);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    private void invoke(Method method, Object argument) {
        try {
            method.invoke(factory, argument);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Spring Boot's " + method + " is not accessible", e);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
        }
    }
}
