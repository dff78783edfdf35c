package io.hybridconnector.it.dist;

/** The real Tomcat 11.0 distribution with the same jar, built against 10.1. */
class Tomcat11DistributionTest extends DistributionTestBase {

    @Override
    String versionProperty() {
        return "tomcat11.version";
    }
}
