//! The rows of the database, ported value for value from the in-memory data of
//! `targets/_node/social.mjs`, so that a target reading PostgreSQL answers exactly what the
//! in-memory targets answer (and the committed expected answers stay right).
//!
//! Every value is a pure function of integer indices. Relations (comment authors, followers,
//! trending posts) always point into the base 10,000 users / 100,000 posts whatever the
//! scale, so answers to the benchmark's queries do not depend on the scale; users beyond the
//! base (and their posts and comments) are volume only.

/// Users whose values the benchmark's expected answers depend on.
pub const BASE_USERS: u64 = 10_000;
pub const POSTS_PER_USER: u64 = 10;
pub const BASE_POSTS: u64 = BASE_USERS * POSTS_PER_USER;
pub const COMMENTS_PER_POST: u64 = 5;
pub const FOLLOWERS_PER_USER: u64 = 25;
pub const TRENDING_COUNT: u64 = 50;

const FIRST: [&str; 28] = [
    "Ada",
    "Alan",
    "Barbara",
    "Brian",
    "Claude",
    "Dennis",
    "Donald",
    "Edsger",
    "Frances",
    "Grace",
    "Guido",
    "Hedy",
    "Ivan",
    "John",
    "Ken",
    "Leslie",
    "Linus",
    "Margaret",
    "Niklaus",
    "Radia",
    "Robin",
    "Shafi",
    "Sophie",
    "Tim",
    "Tony",
    "Vint",
    "Whitfield",
    "Yukihiro",
];
const LAST: [&str; 29] = [
    "Lovelace",
    "Turing",
    "Liskov",
    "Kernighan",
    "Shannon",
    "Ritchie",
    "Knuth",
    "Dijkstra",
    "Allen",
    "Hopper",
    "Rossum",
    "Lamarr",
    "Sutherland",
    "McCarthy",
    "Thompson",
    "Lamport",
    "Torvalds",
    "Hamilton",
    "Wirth",
    "Perlman",
    "Milner",
    "Goldwasser",
    "Wilson",
    "Berners",
    "Hoare",
    "Cerf",
    "Diffie",
    "Matsumoto",
    "Backus",
];
const TOPICS: [&str; 16] = [
    "caching",
    "query planning",
    "schema design",
    "federation",
    "pagination",
    "batching",
    "persisted queries",
    "subscriptions",
    "error handling",
    "rate limiting",
    "tracing",
    "code generation",
    "input validation",
    "nullability",
    "connection pooling",
    "testing",
];
const WORDS: &str = "the server resolves each field of the selection set and returns a tree of values that mirrors the query exactly while the client decides which fields it needs and the schema describes every type that can be asked for so tools can check a document before it runs";

/// 2020-01-01T00:00:00Z in milliseconds since the Unix epoch (the JS `EPOCH_MS`).
pub const EPOCH_MS: i64 = 1_577_836_800_000;
/// One user every ~2 hours from the epoch.
const USER_SPACING_MS: i64 = 7_261_000;
const HOUR_MS: i64 = 3_600_000;
const CONTENT_POOL_LEN: usize = 64;

/// The 64 post bodies, built as the JS builds `CONTENT_POOL`.
pub fn content_pool() -> Vec<String> {
    let words: Vec<&str> = WORDS.split(' ').collect();
    (0..CONTENT_POOL_LEN)
        .map(|i| {
            let mut parts: Vec<&str> = Vec::new();
            // `parts.join(' ').length` in JS: the words are ASCII, so bytes = UTF-16 units.
            let joined_len = |parts: &[&str]| {
                parts.iter().map(|p| p.len()).sum::<usize>() + parts.len().saturating_sub(1)
            };
            let mut w = 0;
            while joined_len(&parts) < 280 + (i % 7) * 20 {
                parts.push(words[(i * 5 + w * 3) % words.len()]);
                w += 1;
            }
            format!(
                "Notes on {} #{i}: {}.",
                TOPICS[i % TOPICS.len()],
                parts.join(" ")
            )
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub idx: u64,
    pub first_name: &'static str,
    pub last_name: &'static str,
    pub email: String,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: i64,
}

pub fn user(u: u64) -> User {
    let first_name = FIRST[(u % FIRST.len() as u64) as usize];
    let last_name = LAST[((u * 7 + 3) % LAST.len() as u64) as usize];
    User {
        idx: u,
        first_name,
        last_name,
        email: format!(
            "{}.{}.{u}@bench.example.com",
            first_name.to_lowercase(),
            last_name.to_lowercase()
        ),
        created_at_ms: EPOCH_MS + u as i64 * USER_SPACING_MS,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Post {
    pub idx: u64,
    pub author_idx: u64,
    pub pos: u64,
    pub title: String,
    /// Index into `content_pool()`.
    pub content: usize,
    pub published_at_ms: i64,
    pub view_count: u64,
}

pub fn post(p: u64) -> Post {
    let author = p / POSTS_PER_USER;
    let pos = p % POSTS_PER_USER;
    Post {
        idx: p,
        author_idx: author,
        pos,
        title: format!(
            "{} in practice, part {}",
            TOPICS[((p * 3) % TOPICS.len() as u64) as usize],
            pos + 1
        ),
        content: ((p * 13) % CONTENT_POOL_LEN as u64) as usize,
        // Posts appear after their author's creation date, spaced by hours.
        published_at_ms: EPOCH_MS + author as i64 * USER_SPACING_MS + (pos as i64 + 1) * HOUR_MS,
        view_count: (p * 7919) % 100_000,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub idx: u64,
    pub post_idx: u64,
    pub pos: u64,
    pub text: String,
    pub author_idx: u64,
}

/// Comment `k` (0..5) of post `p`; its id is p * 5 + k.
pub fn comment(p: u64, k: u64) -> Comment {
    let n = p * COMMENTS_PER_POST + k;
    Comment {
        idx: n,
        post_idx: p,
        pos: k,
        text: format!(
            "Comment {} on post-{p}: {} is worth it.",
            k + 1,
            TOPICS[(n % TOPICS.len() as u64) as usize]
        ),
        author_idx: (p * 7 + k * 1_013) % BASE_USERS,
    }
}

/// Follower `k` (0..25) of user `u`.
pub fn follower(u: u64, k: u64) -> u64 {
    (u * 31 + k * 17 + 1) % BASE_USERS
}

/// The post at trending rank `k` (0..50).
pub fn trending(k: u64) -> u64 {
    (k * 7_919 + 4_243) % BASE_POSTS
}

/// Rows per table for `scale` users: (users, posts, comments, followers, trending).
pub fn row_counts(scale: u64) -> [(&'static str, u64); 5] {
    let posts = scale * POSTS_PER_USER;
    [
        ("users", scale),
        ("posts", posts),
        ("comments", posts * COMMENTS_PER_POST),
        ("followers", scale * FOLLOWERS_PER_USER),
        ("trending", TRENDING_COUNT),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_match_the_js() {
        let u = user(0);
        assert_eq!((u.first_name, u.last_name), ("Ada", "Kernighan"));
        assert_eq!(u.email, "ada.kernighan.0@bench.example.com");
        assert_eq!(u.created_at_ms, EPOCH_MS);
        let u = user(9_999);
        // 9999 % 28 = 3, (9999 * 7 + 3) % 29 = 19
        assert_eq!((u.first_name, u.last_name), ("Brian", "Perlman"));
        assert_eq!(u.created_at_ms, EPOCH_MS + 9_999 * 7_261_000);
    }

    #[test]
    fn content_pool_is_built_like_the_js() {
        let pool = content_pool();
        assert_eq!(pool.len(), 64);
        // Word w of entry i is WORDS[(i * 5 + w * 3) % 48].
        assert!(pool[0].starts_with("Notes on caching #0: the each the and "));
        assert!(pool[17].starts_with("Notes on query planning #17: "));
        for (i, c) in pool.iter().enumerate() {
            // The words part is at least 280 + (i % 7) * 20 long and one word past it at most.
            let body = c.split_once(": ").map(|x| x.1).unwrap_or("");
            assert!(body.len() > 280 + (i % 7) * 20, "{i}: {}", body.len());
            assert!(body.len() < 280 + (i % 7) * 20 + 16, "{i}: {}", body.len());
            assert!(c.ends_with('.'));
        }
    }

    #[test]
    fn posts_comments_followers_trending() {
        let p = post(12_345);
        assert_eq!((p.author_idx, p.pos), (1_234, 5));
        assert_eq!(p.title, "code generation in practice, part 6");
        assert_eq!(p.content, (12_345 * 13) % 64);
        assert_eq!(p.view_count, (12_345 * 7_919) % 100_000);
        let c = comment(12_345, 3);
        assert_eq!(c.idx, 61_728);
        assert_eq!(c.author_idx, (12_345 * 7 + 3 * 1_013) % 10_000);
        assert_eq!(c.text, "Comment 4 on post-12345: caching is worth it.");
        assert_eq!(follower(9_999, 24), (9_999 * 31 + 24 * 17 + 1) % 10_000);
        assert_eq!(trending(0), 4_243);
        // Beyond the base, relations still point into it.
        assert!(comment(5_000_000, 4).author_idx < BASE_USERS);
        assert!(follower(900_000, 3) < BASE_USERS);
        let total: u64 = row_counts(10_000).iter().map(|r| r.1).sum();
        assert_eq!(total, 10_000 + 100_000 + 500_000 + 250_000 + 50);
    }
}
