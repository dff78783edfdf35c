package io.hybridconnector.it.dist;

/**
 * The real Tomcat 9.0 distribution (the {@code javax.servlet} line) with our connector: the same jar, the samples built
 * for {@code javax.servlet}, the bundled {@code examples}, {@code docs} and {@code manager}.
 */
class Tomcat9DistributionTest extends DistributionTestBase {

    @Override
    String versionProperty() {
        return "tomcat9.version";
    }
}
