// The social workload from PostgreSQL with batching (GQLBENCH_RESOLVERS=dataloader): graphql-java's
// DataLoader as Spring for GraphQL sets it up, one DataLoaderRegistry per request (so nothing is
// ever served from another request's cache), each batch one `= ANY(?)` query (social/medium: 4 a
// request). Post.author and Comment.author are @BatchMapping methods (the parents of one level
// in, their users out); the list fields take a `limit`, which @BatchMapping cannot see, so their
// loaders are registered by name with the BatchLoaderRegistry, keyed by (parent, bound), and the
// @SchemaMapping methods hand their keys to the DataLoader Spring resolves by parameter name.
package gqlbench.springgraphql;

import gqlbench.springgraphql.Data.Comment;
import gqlbench.springgraphql.Data.Post;
import gqlbench.springgraphql.Data.User;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.dataloader.DataLoader;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.graphql.data.method.annotation.Argument;
import org.springframework.graphql.data.method.annotation.BatchMapping;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.data.method.annotation.SchemaMapping;
import org.springframework.graphql.execution.BatchLoaderRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Mono;

@Controller
@ConditionalOnExpression("'${GQLBENCH_RESOLVERS:}' == 'dataloader'")
public class DataLoaderDbController {
  /** A list loader's key: the parent's idx and the exclusive `pos` bound of its limit. */
  public record ListKey(int parent, int bound) {}

  /** One row of a list with its position, to cut each key's list at its own bound. */
  private record Positioned<T>(int parent, int pos, T value) {}

  private final JdbcTemplate jdbc;

  public DataLoaderDbController(JdbcTemplate jdbc, BatchLoaderRegistry registry) {
    this.jdbc = jdbc;
    registry.<ListKey, List<Post>>forName("postsLoader").registerMappedBatchLoader((keys, env) ->
        Mono.fromCallable(() -> loadLists(keys, Db.POSTS_BATCH_SQL,
            (rs, n) -> new Positioned<>(rs.getInt("author_idx"), rs.getInt("pos"), Db.POST.mapRow(rs, n)))));
    registry.<ListKey, List<Comment>>forName("commentsLoader").registerMappedBatchLoader((keys, env) ->
        Mono.fromCallable(() -> loadLists(keys, Db.COMMENTS_BATCH_SQL,
            (rs, n) -> new Positioned<>(rs.getInt("post_idx"), rs.getInt("pos"), Db.COMMENT.mapRow(rs, n)))));
    registry.<ListKey, List<User>>forName("followersLoader").registerMappedBatchLoader((keys, env) ->
        Mono.fromCallable(() -> loadLists(keys, Db.FOLLOWERS_BATCH_SQL,
            (rs, n) -> new Positioned<>(rs.getInt("parent"), rs.getInt("follower_pos"), Db.USER.mapRow(rs, n)))));
  }

  /** One query for every key of the batch: the distinct parents, up to the largest bound. */
  private <T> Map<ListKey, List<T>> loadLists(Set<ListKey> keys, String sql, RowMapper<Positioned<T>> mapper) {
    Set<Integer> parents = new LinkedHashSet<>();
    int bound = Integer.MIN_VALUE;
    for (ListKey k : keys) {
      parents.add(k.parent());
      bound = Math.max(bound, k.bound());
    }
    int maxBound = bound;
    List<Positioned<T>> rows = jdbc.query((connection) -> {
      PreparedStatement ps = connection.prepareStatement(sql);
      ps.setArray(1, Db.intArray(connection, parents));
      ps.setInt(2, maxBound);
      return ps;
    }, mapper);
    Map<Integer, List<Positioned<T>>> byParent = new HashMap<>();
    for (Positioned<T> r : rows) byParent.computeIfAbsent(r.parent(), (p) -> new ArrayList<>()).add(r);
    Map<ListKey, List<T>> out = new HashMap<>(keys.size() * 2);
    for (ListKey k : keys) {
      List<T> list = new ArrayList<>();
      for (Positioned<T> r : byParent.getOrDefault(k.parent(), List.of())) {
        if (r.pos() < k.bound()) list.add(r.value());
      }
      out.put(k, list);
    }
    return out;
  }

  /** The users of a batch by idx, in one query. */
  private Map<Integer, User> usersByIdx(Set<Integer> idxs) {
    List<User> users = jdbc.query((connection) -> {
      PreparedStatement ps = connection.prepareStatement(Db.USERS_BATCH_SQL);
      ps.setArray(1, Db.intArray(connection, idxs));
      return ps;
    }, Db.USER);
    Map<Integer, User> byIdx = new HashMap<>(users.size() * 2);
    for (User u : users) byIdx.put(u.index, u);
    return byIdx;
  }

  private <P> Map<P, User> authorsOf(List<P> parents, Function<P, Integer> authorIdx) {
    Set<Integer> idxs = new LinkedHashSet<>();
    for (P p : parents) idxs.add(authorIdx.apply(p));
    Map<Integer, User> byIdx = usersByIdx(idxs);
    Map<P, User> out = new HashMap<>(parents.size() * 2);
    for (P p : parents) {
      User u = byIdx.get(authorIdx.apply(p));
      if (u != null) out.put(p, u);
    }
    return out;
  }

  // Root fields run once per request: nothing to batch, one query each.

  @QueryMapping
  public User user(@Argument String id) {
    int idx = Db.userIdxFromId(id);
    return idx < 0 ? null : Db.first(jdbc.query(Db.USER_SQL, Db.USER, idx));
  }

  @QueryMapping
  public User me() {
    return Db.first(jdbc.query(Db.USER_SQL, Db.USER, Data.ME_USER));
  }

  @QueryMapping
  public List<Post> trendingPosts(@Argument Integer limit) {
    return jdbc.query(Db.TRENDING_SQL, Db.POST, Db.trendingBound(limit));
  }

  @SchemaMapping(typeName = "User")
  public CompletableFuture<List<Post>> posts(User user, @Argument Integer limit,
      DataLoader<ListKey, List<Post>> postsLoader) {
    return postsLoader.load(new ListKey(user.index, Db.posBound(limit)));
  }

  @SchemaMapping(typeName = "User")
  public CompletableFuture<List<User>> followers(User user, @Argument Integer limit,
      DataLoader<ListKey, List<User>> followersLoader) {
    return followersLoader.load(new ListKey(user.index, Db.posBound(limit)));
  }

  @SchemaMapping(typeName = "Post")
  public CompletableFuture<List<Comment>> comments(Post post, @Argument Integer limit,
      DataLoader<ListKey, List<Comment>> commentsLoader) {
    return commentsLoader.load(new ListKey(post.index(), Db.posBound(limit)));
  }

  @BatchMapping(typeName = "Post", field = "author")
  public Map<Post, User> postAuthors(List<Post> posts) {
    return authorsOf(posts, Post::authorIndex);
  }

  @BatchMapping(typeName = "Comment", field = "author")
  public Map<Comment, User> commentAuthors(List<Comment> comments) {
    return authorsOf(comments, Comment::authorIndex);
  }
}
