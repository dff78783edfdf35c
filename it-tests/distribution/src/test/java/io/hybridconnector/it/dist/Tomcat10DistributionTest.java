package io.hybridconnector.it.dist;

/** The real Tomcat 10.1 distribution (the primary target) with our connector. */
class Tomcat10DistributionTest extends DistributionTestBase {

    @Override
    String versionProperty() {
        return "tomcat10.version";
    }
}
