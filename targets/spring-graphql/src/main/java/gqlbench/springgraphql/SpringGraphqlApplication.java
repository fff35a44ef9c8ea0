// gqlbench's spring-graphql target: graphql-java through Spring for GraphQL, schema first
// (src/main/resources/graphql/schema.graphqls), resolvers in @Controller classes, served at
// POST /graphql by Spring MVC on embedded Tomcat (application.properties: 127.0.0.1:$PORT,
// immediate shutdown on SIGTERM, logging at WARN). This class adds the depth limit and the
// one "ready" line; gqlbench's own readiness check is a real `{ __typename }` query.
package gqlbench.springgraphql;

import graphql.analysis.MaxQueryDepthInstrumentation;
import java.lang.management.ManagementFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;

// Spring Boot's own DataSource would want a spring.datasource.url even in memory mode; the
// database modes make their pool themselves (Db.java).
@SpringBootApplication(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
public class SpringGraphqlApplication {
  /** The suite's depth limit (targets/_node/index.mjs DEPTH_LIMIT), counted graphql-java's way. */
  static final int DEPTH_LIMIT = 10;

  /** The database mode from the environment (DbMode), null in memory mode. */
  static DbMode DB_MODE;
  private static long dataBuildMs;

  public static void main(String[] args) {
    DB_MODE = DbMode.fromEnv();
    // The in-memory rows, in every mode as targets/_node builds them in every mode (db.mjs
    // imports social.mjs), so memory figures compare like for like.
    long t0 = System.nanoTime();
    Data.build();
    dataBuildMs = (System.nanoTime() - t0) / 1_000_000;
    SpringApplication.run(SpringGraphqlApplication.class, args);
  }

  /**
   * Spring Boot hands every Instrumentation bean to the GraphQlSource it builds. graphql-java
   * counts a top-level field as depth 1 (graphql-depth-limit: 0), so the suite's depth-10
   * query measures 11 here and is refused, as with Mercurius and GraphQL Armor.
   */
  @Bean
  MaxQueryDepthInstrumentation maxQueryDepthInstrumentation() {
    return new MaxQueryDepthInstrumentation(DEPTH_LIMIT);
  }

  @EventListener
  void ready(ApplicationReadyEvent event) {
    Environment env = event.getApplicationContext().getEnvironment();
    String data = (DB_MODE == null ? "in memory"
        : DB_MODE.resolvers() + " resolvers on PostgreSQL (pool max " + DB_MODE.poolSize() + ")")
        + ", rows built in " + dataBuildMs + " ms";
    System.out.printf("ready: spring-graphql listening on http://%s:%s/graphql, data %s (Spring Boot %s, Java %s, %d processor(s), Spring started in %d ms, JVM up %d ms, pid %d)%n",
        env.getProperty("server.address"), env.getProperty("local.server.port"), data,
        SpringApplication.class.getPackage().getImplementationVersion(),
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
        event.getTimeTaken().toMillis(), ManagementFactory.getRuntimeMXBean().getUptime(),
        ProcessHandle.current().pid());
  }
}
