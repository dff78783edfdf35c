package io.hybridconnector.spring.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A plain Spring Boot web application with nothing about the connector in it: the starter on the class path is the
 * whole installation. The same sources build on Boot 3.5 and 4.0 ({@code sample/boot3}, {@code sample/boot4}).
 */
@SpringBootApplication
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
