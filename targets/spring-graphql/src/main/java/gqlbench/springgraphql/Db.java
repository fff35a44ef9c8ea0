// The database side of the social-db workload: the pool (HikariCP, only in a database mode),
// the SQL of targets/_node/db.mjs, and rows turned into the same objects Data.java builds in
// memory (same ids, the same ISO timestamps: timestamptz read to the millisecond, which is all
// the seeded values have), so the answers are byte-identical to the in-memory ones.
package gqlbench.springgraphql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import gqlbench.springgraphql.Data.Comment;
import gqlbench.springgraphql.Data.Post;
import gqlbench.springgraphql.Data.User;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${GQLBENCH_RESOLVERS:}' != ''")
public class Db {
  // A database that accepts connections but never answers would otherwise hang requests
  // forever; 10 s (as db.mjs) is far above any wait for a pooled connection in a valid run.
  private static final long CONNECT_TIMEOUT_MS = 10_000;

  /** Our own pool rather than Spring Boot's: the URL comes in libpq form (DbMode). */
  @Bean(destroyMethod = "close")
  DataSource dataSource() {
    DbMode mode = SpringGraphqlApplication.DB_MODE;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(mode.jdbcUrl());
    if (mode.user() != null) config.setUsername(mode.user());
    if (mode.password() != null) config.setPassword(mode.password());
    config.setMaximumPoolSize(mode.poolSize());
    config.setConnectionTimeout(CONNECT_TIMEOUT_MS);
    config.setPoolName("gqlbench-spring-graphql");
    config.addDataSourceProperty("ApplicationName", "gqlbench-spring-graphql");
    return new HikariDataSource(config);
  }

  @Bean
  JdbcTemplate jdbcTemplate(DataSource dataSource) {
    return new JdbcTemplate(dataSource);
  }

  static final int MAX_INT = Integer.MAX_VALUE;

  static final String USER_COLUMNS = "u.idx, u.first_name, u.last_name, u.email, u.created_at";
  static final String POST_COLUMNS = "p.idx, p.author_idx, p.pos, p.title, p.content, p.published_at, p.view_count";
  static final String COMMENT_COLUMNS = "c.idx, c.post_idx, c.pos, c.text, c.author_idx";

  static final String TRENDING_SQL = "SELECT " + POST_COLUMNS
      + " FROM trending t JOIN posts p ON p.idx = t.post_idx WHERE t.rank < ? ORDER BY t.rank";

  // naive: one query per resolved field.
  static final String USER_SQL = "SELECT " + USER_COLUMNS + " FROM users u WHERE u.idx = ?";
  static final String POSTS_SQL = "SELECT " + POST_COLUMNS
      + " FROM posts p WHERE p.author_idx = ? AND p.pos < ? ORDER BY p.pos";
  static final String COMMENTS_SQL = "SELECT " + COMMENT_COLUMNS
      + " FROM comments c WHERE c.post_idx = ? AND c.pos < ? ORDER BY c.pos";
  static final String FOLLOWERS_SQL = "SELECT " + USER_COLUMNS
      + " FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = ? AND f.pos < ? ORDER BY f.pos";

  // dataloader: one `= ANY(?)` query per batch; lists fetched up to the batch's largest bound
  // and cut per key in Java.
  static final String USERS_BATCH_SQL = "SELECT " + USER_COLUMNS + " FROM users u WHERE u.idx = ANY(?)";
  static final String POSTS_BATCH_SQL = "SELECT " + POST_COLUMNS
      + " FROM posts p WHERE p.author_idx = ANY(?) AND p.pos < ? ORDER BY p.author_idx, p.pos";
  static final String COMMENTS_BATCH_SQL = "SELECT " + COMMENT_COLUMNS
      + " FROM comments c WHERE c.post_idx = ANY(?) AND c.pos < ? ORDER BY c.post_idx, c.pos";
  static final String FOLLOWERS_BATCH_SQL = "SELECT f.user_idx AS parent, f.pos AS follower_pos, " + USER_COLUMNS
      + " FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = ANY(?) AND f.pos < ? ORDER BY f.user_idx, f.pos";

  private static final Pattern DB_USER_ID = Pattern.compile("0|[1-9][0-9]{0,9}");

  /**
   * As in memory ("bench-user-N" or canonical "N"), but for any N the table may hold (gqlbench
   * can seed more users than USER_COUNT); -1 for what cannot be a key, answered null without
   * a query.
   */
  static int userIdxFromId(String id) {
    String digits = id.startsWith("bench-user-") ? id.substring(11) : id;
    if (!DB_USER_ID.matcher(digits).matches()) return -1;
    long n = Long.parseLong(digits);
    return n <= MAX_INT ? (int) n : -1;
  }

  /** A list's `limit` as an exclusive bound on `pos`: absent = all, negative = none. */
  static int posBound(Integer limit) {
    return limit == null ? MAX_INT : limit;
  }

  static int trendingBound(Integer limit) {
    return limit == null ? Data.TRENDING_DEFAULT_LIMIT : limit;
  }

  private static long epochMs(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, OffsetDateTime.class).toInstant().toEpochMilli();
  }

  static final RowMapper<User> USER = (rs, n) -> {
    String first = rs.getString("first_name");
    String last = rs.getString("last_name");
    return new User(rs.getInt("idx"), first + " " + last, rs.getString("email"), first, last,
        epochMs(rs, "created_at") - Data.EPOCH_MS);
  };

  static final RowMapper<Post> POST = (rs, n) -> {
    int idx = rs.getInt("idx");
    return new Post(idx, "post-" + idx, rs.getString("title"), rs.getString("content"),
        Data.iso(epochMs(rs, "published_at") - Data.EPOCH_MS), rs.getInt("view_count"), rs.getInt("author_idx"));
  };

  static final RowMapper<Comment> COMMENT = (rs, n) ->
      new Comment("comment-" + rs.getInt("idx"), rs.getString("text"), rs.getInt("author_idx"));

  /** An int[] parameter for `= ANY(?)`, made by the connection the statement runs on. */
  static Array intArray(Connection connection, Collection<Integer> values) throws SQLException {
    return connection.createArrayOf("int4", values.toArray(new Integer[0]));
  }

  static <T> T first(List<T> rows) {
    return rows.isEmpty() ? null : rows.get(0);
  }
}
