package io.hybridconnector.tls;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class that uses Tomcat API newer than the oldest supported release and that is loaded only where its
 * {@link #value() guard class} exists: its callers test for the guard first. The build check of the supported range
 * ({@code TomcatApiCompatibilityTest}) checks such a class against the releases that have the guard and skips it on
 * the others. Kept in the class file only.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.TYPE)
@interface LoadedOnlyWith {

    /** @return the binary name of the Tomcat class whose presence the callers test */
    String value();
}
