// The entry point of gqlbench's Apollo Router external coprocessor (protocol version 1) in
// Java: a Spring Boot web MVC application on embedded Tomcat. The contract it keeps is
// targets/_coprocessors/CONTRACT.md; the settings (port, shutdown, logging) are in
// application.properties.
package gqlbench.coprocessor;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class CoprocessorApplication {

    public static void main(String[] args) {
        SpringApplication.run(CoprocessorApplication.class, args);
    }
}
