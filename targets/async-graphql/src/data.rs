//! The "social" and "authors" workloads' data, as targets/_node/social.mjs and authors.mjs
//! make it: every value a pure function of integer indices and a fixed epoch
//! (2020-01-01T00:00:00Z), so this server's answers equal the Node targets' byte for byte
//! (`gqlbench check` compares them). Users and posts are built once at start-up, as the
//! Node targets keep theirs in memory; comments are made per request from integers.
//!
//! Every string here is ASCII, so byte lengths and slices equal JavaScript's UTF-16 ones.

use std::borrow::Cow;
use std::sync::RwLock;

use async_graphql::ID;

pub const USER_COUNT: usize = 10_000;
pub const POSTS_PER_USER: usize = 10;
pub const COMMENTS_PER_POST: usize = 5;
pub const FOLLOWERS_PER_USER: usize = 25;
pub const TRENDING_COUNT: usize = 50;
pub const TRENDING_DEFAULT_LIMIT: i32 = 10;
pub const ME_USER: usize = 1;

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
pub const TOPICS: [&str; 16] = [
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
const WORDS_TEXT: &str = "the server resolves each field of the selection set and returns a tree of values that \
mirrors the query exactly while the client decides which fields it needs and the schema \
describes every type that can be asked for so tools can check a document before it runs";

pub const AUTHOR_NAMES: [&str; 20] = [
    "Chinua Achebe",
    "Isabel Allende",
    "Margaret Atwood",
    "Jorge Luis Borges",
    "Italo Calvino",
    "Albert Camus",
    "Miguel de Cervantes",
    "Fyodor Dostoevsky",
    "George Eliot",
    "Gabriel Garcia Marquez",
    "Nikolai Gogol",
    "Kazuo Ishiguro",
    "Franz Kafka",
    "Ursula K. Le Guin",
    "Naguib Mahfouz",
    "Toni Morrison",
    "Haruki Murakami",
    "Orhan Pamuk",
    "Jose Saramago",
    "Virginia Woolf",
];
const BOOK_WORDS: [&str; 12] = [
    "Silent", "River", "Glass", "Northern", "Garden", "Winter", "Paper", "Harbour", "Lantern",
    "Orchard", "Distant", "Salt",
];

const DAY_MS: i64 = 86_400_000;
const EXCERPT_DEFAULT_LENGTH: i32 = 80;
const WORDS_PER_MINUTE: usize = 200;

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil),
/// so dates need no date crate and no clock.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of days_from_civil: (year, month, day).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The data's epoch, 2020-01-01T00:00:00Z, in milliseconds since 1970.
pub fn epoch_ms() -> i64 {
    days_from_civil(2020, 1, 1) * DAY_MS
}

/// JavaScript's `new Date(EPOCH + ms).toISOString()`: always milliseconds, always `Z`.
fn iso(ms_after_epoch: i64) -> String {
    iso_utc(epoch_ms() + ms_after_epoch)
}

/// JavaScript's `new Date(unix_ms).toISOString()`.
pub fn iso_utc(unix_ms: i64) -> String {
    let t = unix_ms;
    let (days, in_day) = (t.div_euclid(DAY_MS), t.rem_euclid(DAY_MS));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

pub struct User {
    pub index: usize,
    pub id: ID,
    /// Behind a lock only for `renameUser`, the one write (the response-cache staleness
    /// check's); uncontended reads cost next to nothing.
    pub name: RwLock<String>,
    pub email: String,
    /// Borrowed from the name tables in memory, owned when read from PostgreSQL.
    pub first_name: Cow<'static, str>,
    pub last_name: Cow<'static, str>,
    pub created_at: String,
    /// Kept beside the string so accountAgeDays needs no date parsing.
    pub created_ms: i64,
}

pub struct Post {
    pub index: usize,
    pub id: ID,
    pub title: String,
    /// Shared bodies from the pool, as the Node targets share their strings (owned when
    /// read from PostgreSQL).
    pub content: Cow<'static, str>,
    pub published_at: String,
    pub view_count: i32,
    pub author_index: usize,
}

#[derive(Clone)]
pub struct CommentRow {
    pub id: ID,
    pub text: String,
    pub author_index: usize,
}

pub struct Store {
    pub users: Vec<User>,
    pub posts: Vec<Post>,
    /// Indices into `posts`: a fixed list spread over the whole id range.
    pub trending: Vec<usize>,
}

/// The pool of 64 post bodies. The JS loop tests the joined length before each word is
/// added; `len` tracks that joined length without joining.
fn content_pool() -> Vec<&'static str> {
    let words: Vec<&str> = WORDS_TEXT.split(' ').collect();
    (0..64)
        .map(|i: usize| {
            let mut parts: Vec<&str> = Vec::new();
            let mut len = 0;
            let mut w = 0;
            while len < 280 + (i % 7) * 20 {
                let word = words[(i * 5 + w * 3) % words.len()];
                len += word.len() + usize::from(!parts.is_empty());
                parts.push(word);
                w += 1;
            }
            let text = format!(
                "Notes on {} #{i}: {}.",
                TOPICS[i % TOPICS.len()],
                parts.join(" ")
            );
            // Lives as long as the process, like the Node module's array.
            &*Box::leak(text.into_boxed_str())
        })
        .collect()
}

impl Store {
    pub fn build() -> Store {
        let users = (0..USER_COUNT)
            .map(|u| {
                let first = FIRST[u % FIRST.len()];
                let last = LAST[(u * 7 + 3) % LAST.len()];
                let created_ms = u as i64 * 7_261_000;
                User {
                    index: u,
                    id: ID(format!("bench-user-{u}")),
                    name: RwLock::new(format!("{first} {last}")),
                    email: format!(
                        "{}.{}.{u}@bench.example.com",
                        first.to_lowercase(),
                        last.to_lowercase()
                    ),
                    first_name: Cow::Borrowed(first),
                    last_name: Cow::Borrowed(last),
                    created_at: iso(created_ms),
                    created_ms,
                }
            })
            .collect();
        let pool = content_pool();
        let posts = (0..USER_COUNT * POSTS_PER_USER)
            .map(|p| {
                let author = p / POSTS_PER_USER;
                let part = p % POSTS_PER_USER + 1;
                Post {
                    index: p,
                    id: ID(format!("post-{p}")),
                    title: format!(
                        "{} in practice, part {part}",
                        TOPICS[(p * 3) % TOPICS.len()]
                    ),
                    content: Cow::Borrowed(pool[(p * 13) % pool.len()]),
                    published_at: iso(author as i64 * 7_261_000 + part as i64 * 3_600_000),
                    view_count: ((p * 7919) % 100_000) as i32,
                    author_index: author,
                }
            })
            .collect::<Vec<_>>();
        let trending = (0..TRENDING_COUNT)
            .map(|k| (k * 7_919 + 4_243) % posts.len())
            .collect();
        Store {
            users,
            posts,
            trending,
        }
    }
}

pub fn comment(post_index: usize, k: usize) -> CommentRow {
    let n = post_index * COMMENTS_PER_POST + k;
    CommentRow {
        id: ID(format!("comment-{n}")),
        text: format!(
            "Comment {} on post-{post_index}: {} is worth it.",
            k + 1,
            TOPICS[n % TOPICS.len()]
        ),
        author_index: (post_index * 7 + k * 1_013) % USER_COUNT,
    }
}

/// Every list's `limit`: absent or null = all; negative = none.
pub fn cap(total: usize, limit: Option<i32>) -> usize {
    match limit {
        None => total,
        Some(l) if l < 0 => 0,
        Some(l) => total.min(l as usize),
    }
}

/// "bench-user-N" or "N" (canonical decimal: no sign, no leading zeros) for the same
/// user; anything else or out of range is None (the query answers null, not an error).
pub fn user_index_from_id(id: &str) -> Option<usize> {
    let digits = id.strip_prefix("bench-user-").unwrap_or(id);
    if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    let n: usize = digits.parse().ok()?;
    (n < USER_COUNT).then_some(n)
}

pub fn word_count(text: &str) -> i32 {
    text.split(' ').filter(|w| !w.is_empty()).count() as i32
}

/// Days from an account's creation to 2025-01-01 (a fixed date, never "now"), floored,
/// never negative.
pub fn account_age_days(created_ms: i64) -> i32 {
    let reference = (days_from_civil(2025, 1, 1) - days_from_civil(2020, 1, 1)) * DAY_MS;
    (reference - created_ms).div_euclid(DAY_MS).max(0) as i32
}

/// The title lower-cased, every run of characters other than [a-z0-9] made one `-`, a
/// leading or trailing `-` dropped, then `-<index>` (the JS regex pair, by hand).
pub fn slug(title: &str, index: usize) -> String {
    let mut out = String::with_capacity(title.len() + 8);
    let mut pending_dash = false;
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if pending_dash && !out.is_empty() {
                out.push('-');
            }
            pending_dash = false;
            out.push(c);
        } else {
            pending_dash = true;
        }
    }
    // A trailing run is dropped by never being written; a leading one by `out` being empty.
    out.push('-');
    out.push_str(&index.to_string());
    out
}

/// The first `length` characters (default 80; negative = 0), trailing whitespace trimmed,
/// then "..."; the whole text when it is no longer than that.
pub fn excerpt(content: &str, length: Option<i32>) -> String {
    let n = length.unwrap_or(EXCERPT_DEFAULT_LENGTH).max(0) as usize;
    if content.len() <= n {
        return content.to_string();
    }
    if n == 0 {
        return String::new();
    }
    format!("{}...", content[..n].trim_end())
}

pub fn reading_time_minutes(content: &str) -> i32 {
    (word_count(content) as usize)
        .div_ceil(WORDS_PER_MINUTE)
        .max(1) as i32
}

pub fn book_name(a: usize, b: usize) -> String {
    let n = BOOK_WORDS.len();
    format!(
        "The {} {}",
        BOOK_WORDS[(a + b * 5) % n],
        BOOK_WORDS[(a * 3 + b + 7) % n]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_match_javascript() {
        assert_eq!(iso(0), "2020-01-01T00:00:00.000Z");
        // new Date(Date.UTC(2020,0,1) + 9999 * 7261000).toISOString()
        assert_eq!(iso(9_999 * 7_261_000), "2022-04-20T07:25:39.000Z");
        assert_eq!(account_age_days(0), 1827);
    }

    #[test]
    fn ids() {
        assert_eq!(user_index_from_id("bench-user-42"), Some(42));
        assert_eq!(user_index_from_id("42"), Some(42));
        assert_eq!(user_index_from_id("0"), Some(0));
        assert_eq!(user_index_from_id("042"), None);
        assert_eq!(user_index_from_id("10000"), None);
        assert_eq!(user_index_from_id("+1"), None);
    }

    #[test]
    fn slugs() {
        assert_eq!(
            slug("query planning in practice, part 3", 7),
            "query-planning-in-practice-part-3-7"
        );
    }
}
