// The social and authors workloads' data and computed fields, as targets/_node/social.mjs and
// authors.mjs define them: every value a pure function of integer indices and a fixed epoch,
// so this server's answers equal the Node targets' byte for byte (`gqlbench check` compares
// them). Users and posts are built once at start-up, as the Node targets keep theirs in
// memory; comments are made per request from integers, as there.
package gqlbench.springgraphql;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

public final class Data {
  private Data() {}

  /**
   * Does nothing itself: calling it runs this class's static initialisers, which build every
   * user, post and author. main() calls it before Spring starts, so the rows exist before the
   * server answers (the Node targets build theirs when social.mjs is imported), not on the
   * first request that touches them.
   */
  public static void build() {}

  public static final int USER_COUNT = 10_000;
  public static final int POSTS_PER_USER = 10;
  public static final int COMMENTS_PER_POST = 5;
  public static final int FOLLOWERS_PER_USER = 25;
  public static final int TRENDING_COUNT = 50;
  public static final int TRENDING_DEFAULT_LIMIT = 10;
  public static final int ME_USER = 1;

  private static final String[] FIRST = {
    "Ada", "Alan", "Barbara", "Brian", "Claude", "Dennis", "Donald", "Edsger", "Frances",
    "Grace", "Guido", "Hedy", "Ivan", "John", "Ken", "Leslie", "Linus", "Margaret", "Niklaus",
    "Radia", "Robin", "Shafi", "Sophie", "Tim", "Tony", "Vint", "Whitfield", "Yukihiro",
  };
  private static final String[] LAST = {
    "Lovelace", "Turing", "Liskov", "Kernighan", "Shannon", "Ritchie", "Knuth", "Dijkstra",
    "Allen", "Hopper", "Rossum", "Lamarr", "Sutherland", "McCarthy", "Thompson", "Lamport",
    "Torvalds", "Hamilton", "Wirth", "Perlman", "Milner", "Goldwasser", "Wilson", "Berners",
    "Hoare", "Cerf", "Diffie", "Matsumoto", "Backus",
  };
  private static final String[] TOPICS = {
    "caching", "query planning", "schema design", "federation", "pagination", "batching",
    "persisted queries", "subscriptions", "error handling", "rate limiting", "tracing",
    "code generation", "input validation", "nullability", "connection pooling", "testing",
  };
  private static final String[] WORDS = (
      "the server resolves each field of the selection set and returns a tree of values that "
      + "mirrors the query exactly while the client decides which fields it needs and the schema "
      + "describes every type that can be asked for so tools can check a document before it runs")
      .split(" ");

  // 2020-01-01T00:00:00Z, never the clock, so dates are reproducible.
  static final long EPOCH_MS = Instant.parse("2020-01-01T00:00:00Z").toEpochMilli();
  // Account age is measured to a fixed date, not to "now", so answers never change.
  private static final long AGE_REFERENCE_MS = Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();
  private static final long DAY_MS = 86_400_000L;
  private static final int EXCERPT_DEFAULT_LENGTH = 80;
  private static final int WORDS_PER_MINUTE = 200;

  // JavaScript's Date.toISOString(): always milliseconds, always Z (the years here have four
  // digits, where the two formats agree).
  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

  static String iso(long msAfterEpoch) {
    return ISO.format(Instant.ofEpochMilli(EPOCH_MS + msAfterEpoch));
  }

  /** A user row; `name` is the one value that changes (renameUser), hence volatile. */
  public static final class User {
    public final int index;
    public final String id;
    public volatile String name;
    public final String email;
    public final String firstName;
    public final String lastName;
    public final String createdAt;
    /** createdAt as milliseconds after the epoch, for accountAgeDays without parsing. */
    public final long createdMs;

    User(int index, String name, String email, String firstName, String lastName, long createdMs) {
      this.index = index;
      this.id = "bench-user-" + index;
      this.name = name;
      this.email = email;
      this.firstName = firstName;
      this.lastName = lastName;
      this.createdMs = createdMs;
      this.createdAt = iso(createdMs);
    }

    // Getters: graphql-java's default property fetcher reads the plain fields through them.
    public String getId() { return id; }
    public String getName() { return name; }
    public String getEmail() { return email; }
    public String getFirstName() { return firstName; }
    public String getLastName() { return lastName; }
    public String getCreatedAt() { return createdAt; }
  }

  /** A post row (author by index: the resolver looks it up, as in the Node targets). */
  public record Post(int index, String id, String title, String content, String publishedAt,
      int viewCount, int authorIndex) {}

  public record Comment(String id, String text, int authorIndex) {}

  public record Book(String id, String name) {}

  public record Author(String id, String name, List<Book> books) {}

  // A pool of post bodies, chosen per post from its index (as social.mjs: shared strings keep
  // 100,000 posts cheap while answers vary from post to post).
  private static final String[] CONTENT_POOL = new String[64];

  static {
    for (int i = 0; i < CONTENT_POOL.length; i++) {
      StringBuilder joined = new StringBuilder();
      // The loop condition tests the length of the words joined so far, as social.mjs does.
      for (int w = 0; joined.length() < 280 + (i % 7) * 20; w++) {
        if (w > 0) joined.append(' ');
        joined.append(WORDS[(i * 5 + w * 3) % WORDS.length]);
      }
      CONTENT_POOL[i] = "Notes on " + TOPICS[i % TOPICS.length] + " #" + i + ": " + joined + ".";
    }
  }

  public static final User[] USERS = new User[USER_COUNT];

  static {
    for (int u = 0; u < USER_COUNT; u++) {
      String first = FIRST[u % FIRST.length];
      String last = LAST[(u * 7 + 3) % LAST.length];
      USERS[u] = new User(u, first + " " + last,
          first.toLowerCase(Locale.ROOT) + "." + last.toLowerCase(Locale.ROOT) + "." + u + "@bench.example.com",
          first, last,
          // one user every ~2 hours from the epoch (long: 9,999 x 7,261,000 overflows an int)
          u * 7_261_000L);
    }
  }

  public static final Post[] POSTS = new Post[USER_COUNT * POSTS_PER_USER];

  static {
    for (int p = 0; p < POSTS.length; p++) {
      int author = p / POSTS_PER_USER;
      POSTS[p] = new Post(p, "post-" + p,
          TOPICS[(p * 3) % TOPICS.length] + " in practice, part " + ((p % POSTS_PER_USER) + 1),
          CONTENT_POOL[(p * 13) % CONTENT_POOL.length],
          iso(author * 7_261_000L + ((p % POSTS_PER_USER) + 1) * 3_600_000L),
          (p * 7919) % 100_000,
          author);
    }
  }

  /** A fixed list of posts spread over the whole id range. */
  public static final List<Post> TRENDING;

  static {
    Post[] t = new Post[TRENDING_COUNT];
    for (int k = 0; k < TRENDING_COUNT; k++) t[k] = POSTS[(k * 7_919 + 4_243) % POSTS.length];
    TRENDING = List.of(t);
  }

  public static Comment comment(int postIndex, int k) {
    int n = postIndex * COMMENTS_PER_POST + k;
    return new Comment("comment-" + n,
        "Comment " + (k + 1) + " on post-" + postIndex + ": " + TOPICS[n % TOPICS.length] + " is worth it.",
        (postIndex * 7 + k * 1_013) % USER_COUNT);
  }

  /** Every list's `limit`: absent or null = all; negative = none. */
  public static int cap(int total, Integer limit) {
    if (limit == null) return total;
    return limit < 0 ? 0 : Math.min(total, limit);
  }

  /**
   * "bench-user-N" or "N" name the same user when N is canonical decimal (ASCII digits, no
   * sign, no leading zero) below USER_COUNT, which is what social.mjs's Number/String round
   * trip accepts; anything else is -1 (the query answers null, not an error).
   */
  public static int userIndexFromId(String id) {
    String digits = id.startsWith("bench-user-") ? id.substring(11) : id;
    int len = digits.length();
    if (len == 0 || len > 5) return -1;
    if (len > 1 && digits.charAt(0) == '0') return -1;
    int n = 0;
    for (int i = 0; i < len; i++) {
      char c = digits.charAt(i);
      if (c < '0' || c > '9') return -1;
      n = n * 10 + (c - '0');
    }
    return n < USER_COUNT ? n : -1;
  }

  public static User userById(String id) {
    int n = userIndexFromId(id);
    return n < 0 ? null : USERS[n];
  }

  public static List<Post> postsOf(User user, Integer limit) {
    int first = user.index * POSTS_PER_USER;
    return Arrays.asList(POSTS).subList(first, first + cap(POSTS_PER_USER, limit));
  }

  public static List<User> followersOf(User user, Integer limit) {
    int n = cap(FOLLOWERS_PER_USER, limit);
    List<User> out = new ArrayList<>(n);
    for (int k = 0; k < n; k++) out.add(USERS[(user.index * 31 + k * 17 + 1) % USER_COUNT]);
    return out;
  }

  public static List<Comment> commentsOf(Post post, Integer limit) {
    int n = cap(COMMENTS_PER_POST, limit);
    List<Comment> out = new ArrayList<>(n);
    for (int k = 0; k < n; k++) out.add(comment(post.index(), k));
    return out;
  }

  // Computed fields: pure functions of the parent row, shared by every resolver set.

  public static String displayName(User u) {
    return u.firstName + " " + u.lastName.substring(0, Math.min(1, u.lastName.length())) + ".";
  }

  public static String initials(User u) {
    return u.firstName.substring(0, Math.min(1, u.firstName.length()))
        + u.lastName.substring(0, Math.min(1, u.lastName.length()));
  }

  public static String emailDomain(User u) {
    return u.email.substring(u.email.indexOf('@') + 1);
  }

  /** Days from creation to the reference date; accounts created after it are 0 days old. */
  public static int accountAgeDays(User u) {
    return (int) Math.max(0, Math.floorDiv(AGE_REFERENCE_MS - (EPOCH_MS + u.createdMs), DAY_MS));
  }

  private static final Pattern NOT_SLUG = Pattern.compile("[^a-z0-9]+");

  /** social.mjs: runs of other characters become one '-', then one leading and one trailing '-' go. */
  public static String slug(Post p) {
    String s = NOT_SLUG.matcher(p.title().toLowerCase(Locale.ROOT)).replaceAll("-");
    if (s.startsWith("-")) s = s.substring(1);
    if (s.endsWith("-")) s = s.substring(0, s.length() - 1);
    return s + "-" + p.index();
  }

  public static int wordCount(String text) {
    int n = 0;
    for (String w : text.split(" ")) if (!w.isEmpty()) n++;
    return n;
  }

  /** Absent or null = the default length, negative = empty; "..." after a cut. */
  public static String excerpt(Post p, Integer length) {
    int n = length == null ? EXCERPT_DEFAULT_LENGTH : Math.max(0, length);
    String content = p.content();
    if (content.length() <= n) return content;
    return n == 0 ? "" : content.substring(0, n).stripTrailing() + "...";
  }

  public static int readingTimeMinutes(Post p) {
    return Math.max(1, (wordCount(p.content()) + WORDS_PER_MINUTE - 1) / WORDS_PER_MINUTE);
  }

  // ---- authors ----

  private static final String[] AUTHOR_NAMES = {
    "Chinua Achebe", "Isabel Allende", "Margaret Atwood", "Jorge Luis Borges", "Italo Calvino",
    "Albert Camus", "Miguel de Cervantes", "Fyodor Dostoevsky", "George Eliot", "Gabriel Garcia Marquez",
    "Nikolai Gogol", "Kazuo Ishiguro", "Franz Kafka", "Ursula K. Le Guin", "Naguib Mahfouz",
    "Toni Morrison", "Haruki Murakami", "Orhan Pamuk", "Jose Saramago", "Virginia Woolf",
  };
  private static final String[] BOOK_WORDS = {
    "Silent", "River", "Glass", "Northern", "Garden", "Winter", "Paper", "Harbour", "Lantern",
    "Orchard", "Distant", "Salt",
  };

  public static final List<Author> AUTHORS;

  static {
    List<Author> authors = new ArrayList<>(AUTHOR_NAMES.length);
    int w = BOOK_WORDS.length;
    for (int a = 0; a < AUTHOR_NAMES.length; a++) {
      List<Book> books = new ArrayList<>(3);
      for (int b = 0; b < 3; b++) {
        books.add(new Book("book-" + (a + 1) + "-" + (b + 1),
            "The " + BOOK_WORDS[(a + b * 5) % w] + " " + BOOK_WORDS[(a * 3 + b + 7) % w]));
      }
      authors.add(new Author("author-" + (a + 1), AUTHOR_NAMES[a], List.copyOf(books)));
    }
    AUTHORS = List.copyOf(authors);
  }

  /** Hashed on every request: the authors workload's unit of resolver work, never cached. */
  public static String md5(String text) {
    try {
      MessageDigest md = MessageDigest.getInstance("MD5");
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is a JDK-mandated algorithm", e);
    }
  }
}
