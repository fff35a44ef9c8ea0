// The social workload's data-fetching resolvers over the rows Data.java keeps in memory (no
// GQLBENCH_RESOLVERS: every scenario but the database ones). Schema-first Spring for GraphQL:
// each handler method is bound to the SDL field of the same name (@QueryMapping and
// @MutationMapping on Query/Mutation, @SchemaMapping on the parent type); fields without a
// handler (User.name, Post.title, ...) are read from the row by graphql-java's property fetcher.
package gqlbench.springgraphql;

import gqlbench.springgraphql.Data.Comment;
import gqlbench.springgraphql.Data.Post;
import gqlbench.springgraphql.Data.User;
import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.graphql.data.method.annotation.Argument;
import org.springframework.graphql.data.method.annotation.MutationMapping;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.data.method.annotation.SchemaMapping;
import org.springframework.stereotype.Controller;

@Controller
@ConditionalOnExpression("'${GQLBENCH_RESOLVERS:}' == ''")
public class MemoryController {

  @QueryMapping
  public User user(@Argument String id) {
    return Data.userById(id);
  }

  @QueryMapping
  public User me() {
    return Data.USERS[Data.ME_USER];
  }

  @QueryMapping
  public List<Post> trendingPosts(@Argument Integer limit) {
    int wanted = limit == null ? Data.TRENDING_DEFAULT_LIMIT : limit;
    return Data.TRENDING.subList(0, Data.cap(Data.TRENDING.size(), wanted));
  }

  /** Renames the user in memory; null for an unknown id, like the query. */
  @MutationMapping
  public User renameUser(@Argument String id, @Argument String name) {
    User user = Data.userById(id);
    if (user != null) user.name = name;
    return user;
  }

  @SchemaMapping(typeName = "User")
  public List<Post> posts(User user, @Argument Integer limit) {
    return Data.postsOf(user, limit);
  }

  @SchemaMapping(typeName = "User")
  public List<User> followers(User user, @Argument Integer limit) {
    return Data.followersOf(user, limit);
  }

  @SchemaMapping(typeName = "Post")
  public User author(Post post) {
    return Data.USERS[post.authorIndex()];
  }

  @SchemaMapping(typeName = "Post")
  public List<Comment> comments(Post post, @Argument Integer limit) {
    return Data.commentsOf(post, limit);
  }

  @SchemaMapping(typeName = "Comment", field = "author")
  public User commentAuthor(Comment comment) {
    return Data.USERS[comment.authorIndex()];
  }
}
