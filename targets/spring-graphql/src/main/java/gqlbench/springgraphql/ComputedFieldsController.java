// The computed fields of the social workload (User.displayName, Post.slug, Comment.shout, ...):
// pure functions of the parent row (Data.java), resolved by @SchemaMapping handlers in every
// mode, memory or database, as targets/_node shares computedResolvers between both.
package gqlbench.springgraphql;

import gqlbench.springgraphql.Data.Comment;
import gqlbench.springgraphql.Data.Post;
import gqlbench.springgraphql.Data.User;
import java.util.Locale;
import org.springframework.graphql.data.method.annotation.Argument;
import org.springframework.graphql.data.method.annotation.SchemaMapping;
import org.springframework.stereotype.Controller;

@Controller
public class ComputedFieldsController {

  @SchemaMapping(typeName = "User")
  public String displayName(User user) {
    return Data.displayName(user);
  }

  @SchemaMapping(typeName = "User")
  public String initials(User user) {
    return Data.initials(user);
  }

  @SchemaMapping(typeName = "User")
  public String emailDomain(User user) {
    return Data.emailDomain(user);
  }

  @SchemaMapping(typeName = "User")
  public int accountAgeDays(User user) {
    return Data.accountAgeDays(user);
  }

  @SchemaMapping(typeName = "Post")
  public String slug(Post post) {
    return Data.slug(post);
  }

  @SchemaMapping(typeName = "Post")
  public int wordCount(Post post) {
    return Data.wordCount(post.content());
  }

  @SchemaMapping(typeName = "Post")
  public String excerpt(Post post, @Argument Integer length) {
    return Data.excerpt(post, length);
  }

  @SchemaMapping(typeName = "Post")
  public int readingTimeMinutes(Post post) {
    return Data.readingTimeMinutes(post);
  }

  @SchemaMapping(typeName = "Comment")
  public int length(Comment comment) {
    return comment.text().length();
  }

  @SchemaMapping(typeName = "Comment")
  public String shout(Comment comment) {
    // Locale.ROOT: JavaScript's toUpperCase is locale-independent.
    return comment.text().toUpperCase(Locale.ROOT);
  }
}
