// Which data source this process serves, read once from the environment before Spring starts,
// as targets/_node/db.mjs reads it: GQLBENCH_RESOLVERS unset = memory; naive or dataloader =
// PostgreSQL at GQLBENCH_DATABASE_URL with a pool of GQLBENCH_DB_POOL (default 20). A bad value
// exits 2 naming it: a run that silently fell back to memory would report the wrong thing.
package gqlbench.springgraphql;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

public record DbMode(String resolvers, String jdbcUrl, String user, String password, int poolSize) {
  static final int DEFAULT_POOL_SIZE = 20;

  /** null in memory mode. */
  static DbMode fromEnv() {
    String mode = System.getenv("GQLBENCH_RESOLVERS");
    if (mode == null || mode.isEmpty()) return null;
    if (!mode.equals("naive") && !mode.equals("dataloader")) {
      fail("invalid GQLBENCH_RESOLVERS \"" + mode + "\": expected naive or dataloader");
    }
    String url = System.getenv("GQLBENCH_DATABASE_URL");
    if (url == null || url.isEmpty()) fail("GQLBENCH_RESOLVERS is set but GQLBENCH_DATABASE_URL is not");
    int pool = DEFAULT_POOL_SIZE;
    String rawPool = System.getenv("GQLBENCH_DB_POOL");
    if (rawPool != null && !rawPool.isEmpty()) {
      try {
        pool = Integer.parseInt(rawPool);
      } catch (NumberFormatException e) {
        pool = 0;
      }
      if (pool < 1) fail("invalid GQLBENCH_DB_POOL \"" + rawPool + "\": expected a whole number above 0");
    }
    // postgres://user[:password]@host:port/database, the libpq form gqlbench gives, becomes
    // the JDBC driver's jdbc:postgresql://host:port/database with the credentials beside it.
    try {
      URI uri = new URI(url);
      if (!"postgres".equals(uri.getScheme()) && !"postgresql".equals(uri.getScheme())) {
        fail("GQLBENCH_DATABASE_URL must be a postgres:// URL, not " + url);
      }
      String user = null;
      String password = null;
      if (uri.getRawUserInfo() != null) {
        String[] parts = uri.getRawUserInfo().split(":", 2);
        user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
        if (parts.length > 1) password = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
      }
      String hostPort = uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "");
      String jdbc = "jdbc:postgresql://" + hostPort + uri.getRawPath()
          + (uri.getRawQuery() != null ? "?" + uri.getRawQuery() : "");
      return new DbMode(mode, jdbc, user, password, pool);
    } catch (URISyntaxException e) {
      fail("invalid GQLBENCH_DATABASE_URL " + url + ": " + e.getMessage());
      return null;
    }
  }

  boolean dataloader() {
    return resolvers.equals("dataloader");
  }

  private static void fail(String message) {
    System.err.println(message);
    System.exit(2);
  }
}
