// The social workload from PostgreSQL, naive (GQLBENCH_RESOLVERS=naive): every data-fetching
// field runs its own SQL query when it resolves, as code written without batching does (the
// N+1 pattern; social/medium: 62 queries a request). Blocking JDBC on the request's thread,
// as a Spring MVC application does. Computed fields and authors: the shared controllers.
package gqlbench.springgraphql;

import gqlbench.springgraphql.Data.Comment;
import gqlbench.springgraphql.Data.Post;
import gqlbench.springgraphql.Data.User;
import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.graphql.data.method.annotation.Argument;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.data.method.annotation.SchemaMapping;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Controller;

@Controller
@ConditionalOnExpression("'${GQLBENCH_RESOLVERS:}' == 'naive'")
public class NaiveDbController {
  private final JdbcTemplate jdbc;

  public NaiveDbController(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  private User userByIdx(int idx) {
    return Db.first(jdbc.query(Db.USER_SQL, Db.USER, idx));
  }

  @QueryMapping
  public User user(@Argument String id) {
    int idx = Db.userIdxFromId(id);
    return idx < 0 ? null : userByIdx(idx);
  }

  @QueryMapping
  public User me() {
    return userByIdx(Data.ME_USER);
  }

  @QueryMapping
  public List<Post> trendingPosts(@Argument Integer limit) {
    return jdbc.query(Db.TRENDING_SQL, Db.POST, Db.trendingBound(limit));
  }

  @SchemaMapping(typeName = "User")
  public List<Post> posts(User user, @Argument Integer limit) {
    return jdbc.query(Db.POSTS_SQL, Db.POST, user.index, Db.posBound(limit));
  }

  @SchemaMapping(typeName = "User")
  public List<User> followers(User user, @Argument Integer limit) {
    return jdbc.query(Db.FOLLOWERS_SQL, Db.USER, user.index, Db.posBound(limit));
  }

  @SchemaMapping(typeName = "Post")
  public User author(Post post) {
    return userByIdx(post.authorIndex());
  }

  @SchemaMapping(typeName = "Post")
  public List<Comment> comments(Post post, @Argument Integer limit) {
    return jdbc.query(Db.COMMENTS_SQL, Db.COMMENT, post.index(), Db.posBound(limit));
  }

  @SchemaMapping(typeName = "Comment", field = "author")
  public User commentAuthor(Comment comment) {
    return userByIdx(comment.authorIndex());
  }
}
