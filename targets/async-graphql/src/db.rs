//! The "social" workload served from PostgreSQL (workload "social-db"), as
//! targets/_node/db.mjs does it: the same tables (seeded by gqlbench), the same SQL, the
//! same answers byte for byte.
//!
//!   GQLBENCH_RESOLVERS     unset: the in-memory data, nothing here is used
//!                          naive: one SQL query per resolved field (the N+1 pattern)
//!                          dataloader: async-graphql's DataLoader created per request, one
//!                          `= ANY($1)` query per batch
//!   GQLBENCH_DATABASE_URL  e.g. postgres://gqlbench@127.0.0.1:54321/gqlbench
//!   GQLBENCH_DB_POOL       the pool's size (default 20)
//!
//! tokio-postgres connections in a deadpool-postgres pool; statements prepared once per
//! connection (`prepare_cached`, deadpool's statement cache) as its users write it. A failing
//! query fails its field with a GraphQL error; the process keeps serving.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_graphql::ID;
use async_graphql::dataloader::Loader;
use deadpool_postgres::{Manager, Pool, Runtime};
use tokio_postgres::types::ToSql;
use tokio_postgres::{NoTls, Row};

use crate::data::{self, CommentRow, Post, User};

const DEFAULT_POOL_SIZE: usize = 20;
/// A database that accepts connections but never answers would otherwise hang requests
/// forever; far above any wait for a pooled connection in a valid run.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_INT: i32 = i32::MAX;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Naive,
    Dataloader,
}

/// The pool and how the resolvers use it. Cloning shares the pool.
#[derive(Clone)]
pub struct Db {
    pub mode: Mode,
    pool: Pool,
}

/// None when GQLBENCH_RESOLVERS is unset; Err (the server exits 2) on a bad setting, since
/// a run that silently fell back to memory would report the wrong thing.
pub fn from_env() -> Result<Option<Db>, String> {
    let mode = match std::env::var("GQLBENCH_RESOLVERS")
        .unwrap_or_default()
        .as_str()
    {
        "" => return Ok(None),
        "naive" => Mode::Naive,
        "dataloader" => Mode::Dataloader,
        other => {
            return Err(format!(
                "invalid GQLBENCH_RESOLVERS {other:?}: expected naive or dataloader"
            ));
        }
    };
    let url = std::env::var("GQLBENCH_DATABASE_URL").unwrap_or_default();
    if url.is_empty() {
        return Err("GQLBENCH_RESOLVERS is set but GQLBENCH_DATABASE_URL is not".into());
    }
    let size = match std::env::var("GQLBENCH_DB_POOL")
        .unwrap_or_default()
        .as_str()
    {
        "" => DEFAULT_POOL_SIZE,
        v => match v.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(format!(
                    "invalid GQLBENCH_DB_POOL {v:?}: expected a whole number above 0"
                ));
            }
        },
    };
    let mut config: tokio_postgres::Config = url
        .parse()
        .map_err(|e| format!("invalid GQLBENCH_DATABASE_URL: {e}"))?;
    config
        .application_name("gqlbench-async-graphql")
        .connect_timeout(CONNECT_TIMEOUT);
    // Connections are opened on first use, as pg.Pool opens them.
    let pool = Pool::builder(Manager::new(config, NoTls))
        .max_size(size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(CONNECT_TIMEOUT))
        .create_timeout(Some(CONNECT_TIMEOUT))
        .build()
        .map_err(|e| format!("cannot create the database pool: {e}"))?;
    Ok(Some(Db { mode, pool }))
}

impl Db {
    pub fn pool_size(&self) -> usize {
        self.pool.status().max_size
    }

    async fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, String> {
        let client = self.pool.get().await.map_err(|e| e.to_string())?;
        let statement = client
            .prepare_cached(sql)
            .await
            .map_err(|e| e.to_string())?;
        client
            .query(&statement, params)
            .await
            .map_err(|e| e.to_string())
    }
}

// ---------------------------------------------------------------------------------------
// Rows to the structs the in-memory data uses (same ids, names and ISO timestamps: the
// stored values have millisecond precision, all that toISOString shows).

// Macros rather than consts so that concat! can build every statement at compile time.
macro_rules! user_columns {
    () => {
        "u.idx, u.first_name, u.last_name, u.email, u.created_at"
    };
}
macro_rules! post_columns {
    () => {
        "p.idx, p.author_idx, p.pos, p.title, p.content, p.published_at, p.view_count"
    };
}
macro_rules! comment_columns {
    () => {
        "c.idx, c.post_idx, c.pos, c.text, c.author_idx"
    };
}

const TRENDING_SQL: &str = concat!(
    "SELECT ",
    post_columns!(),
    " FROM trending t JOIN posts p ON p.idx = t.post_idx WHERE t.rank < $1 ORDER BY t.rank"
);
const NAIVE_USER_SQL: &str = concat!("SELECT ", user_columns!(), " FROM users u WHERE u.idx = $1");
const NAIVE_POSTS_SQL: &str = concat!(
    "SELECT ",
    post_columns!(),
    " FROM posts p WHERE p.author_idx = $1 AND p.pos < $2 ORDER BY p.pos"
);
const NAIVE_COMMENTS_SQL: &str = concat!(
    "SELECT ",
    comment_columns!(),
    " FROM comments c WHERE c.post_idx = $1 AND c.pos < $2 ORDER BY c.pos"
);
const NAIVE_FOLLOWERS_SQL: &str = concat!(
    "SELECT ",
    user_columns!(),
    " FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = $1 AND f.pos < $2 ORDER BY f.pos"
);
const BATCH_USERS_SQL: &str = concat!(
    "SELECT ",
    user_columns!(),
    " FROM users u WHERE u.idx = ANY($1::int[])"
);
// One query per batch even when the keys carry different limits: fetch up to the largest
// bound and cut each key's list here.
const BATCH_POSTS_SQL: &str = concat!(
    "SELECT ",
    post_columns!(),
    " FROM posts p WHERE p.author_idx = ANY($1::int[]) AND p.pos < $2 ORDER BY p.author_idx, p.pos"
);
const BATCH_COMMENTS_SQL: &str = concat!(
    "SELECT ",
    comment_columns!(),
    " FROM comments c WHERE c.post_idx = ANY($1::int[]) AND c.pos < $2 ORDER BY c.post_idx, c.pos"
);
const BATCH_FOLLOWERS_SQL: &str = concat!(
    "SELECT f.user_idx AS parent, f.pos AS follower_pos, ",
    user_columns!(),
    " FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = ANY($1::int[]) AND f.pos < $2 ORDER BY f.user_idx, f.pos"
);

fn unix_ms(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_millis() as i64,
        Err(e) => -(e.duration().as_millis() as i64),
    }
}

/// A user from the columns USER_COLUMNS lists, starting at column `at`.
fn to_user(r: &Row, at: usize) -> User {
    let idx: i32 = r.get(at);
    let first: String = r.get(at + 1);
    let last: String = r.get(at + 2);
    let created = unix_ms(r.get(at + 4));
    User {
        index: idx as usize,
        id: ID(format!("bench-user-{idx}")),
        name: RwLock::new(format!("{first} {last}")),
        email: r.get(at + 3),
        first_name: first.into(),
        last_name: last.into(),
        created_at: data::iso_utc(created),
        created_ms: created - data::epoch_ms(),
    }
}

fn to_post(r: &Row) -> Post {
    let idx: i32 = r.get(0);
    let author: i32 = r.get(1);
    Post {
        index: idx as usize,
        id: ID(format!("post-{idx}")),
        title: r.get(3),
        content: r.get::<_, String>(4).into(),
        published_at: data::iso_utc(unix_ms(r.get(5))),
        view_count: r.get(6),
        author_index: author as usize,
    }
}

fn to_comment(r: &Row) -> CommentRow {
    let idx: i32 = r.get(0);
    let author: i32 = r.get(4);
    CommentRow {
        id: ID(format!("comment-{idx}")),
        text: r.get(3),
        author_index: author as usize,
    }
}

/// user(id) takes "bench-user-N" or "N" (canonical decimal) as in memory, but for any N the
/// table may hold (gqlbench can seed more users). Ids that cannot be an integer key are
/// None without a query.
pub fn user_idx_from_id(id: &str) -> Option<i32> {
    let digits = id.strip_prefix("bench-user-").unwrap_or(id);
    let canonical = !digits.is_empty()
        && digits.len() <= 10
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if !canonical {
        return None;
    }
    digits.parse::<i32>().ok()
}

/// The `limit` of a list as an exclusive bound on `pos`: absent = all; a negative limit
/// matches no row, which is "none" as in memory.
pub fn pos_bound(limit: Option<i32>) -> i32 {
    limit.unwrap_or(MAX_INT)
}

pub fn trending_bound(limit: Option<i32>) -> i32 {
    limit.unwrap_or(data::TRENDING_DEFAULT_LIMIT)
}

// ---------------------------------------------------------------------------------------
// naive: every resolver runs its own query as soon as it is called, as code written without
// batching does (medium: 1 user + 1 posts + 10 comments + 50 authors = 62 queries).

impl Db {
    pub async fn trending(&self, limit: Option<i32>) -> Result<Vec<Arc<Post>>, String> {
        let rows = self.query(TRENDING_SQL, &[&trending_bound(limit)]).await?;
        Ok(rows.iter().map(|r| Arc::new(to_post(r))).collect())
    }

    pub async fn user(&self, idx: i32) -> Result<Option<Arc<User>>, String> {
        let rows = self.query(NAIVE_USER_SQL, &[&idx]).await?;
        Ok(rows.first().map(|r| Arc::new(to_user(r, 0))))
    }

    pub async fn posts(&self, parent: i32, bound: i32) -> Result<Vec<Arc<Post>>, String> {
        let rows = self.query(NAIVE_POSTS_SQL, &[&parent, &bound]).await?;
        Ok(rows.iter().map(|r| Arc::new(to_post(r))).collect())
    }

    pub async fn comments(&self, parent: i32, bound: i32) -> Result<Vec<CommentRow>, String> {
        let rows = self.query(NAIVE_COMMENTS_SQL, &[&parent, &bound]).await?;
        Ok(rows.iter().map(to_comment).collect())
    }

    pub async fn followers(&self, parent: i32, bound: i32) -> Result<Vec<Arc<User>>, String> {
        let rows = self.query(NAIVE_FOLLOWERS_SQL, &[&parent, &bound]).await?;
        Ok(rows.iter().map(|r| Arc::new(to_user(r, 0))).collect())
    }
}

// ---------------------------------------------------------------------------------------
// dataloader: the resolvers only call load_one(); async-graphql's DataLoader collects the
// keys asked for within its delay (1 ms by default) and runs ONE query per key type for
// them (medium: user, posts, comments, authors = 4 queries). One DataLoader per request, in
// the request's data, so no answer is ever served from another request.

/// The loader behind the per-request DataLoader: one `Loader` impl per key type.
pub struct PgLoader(pub Db);

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UserKey(pub i32);

/// A list's parent (its idx) and the exclusive `pos` bound of its limit.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListKey {
    pub parent: i32,
    pub bound: i32,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PostsKey(pub ListKey);
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CommentsKey(pub ListKey);
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FollowersKey(pub ListKey);

impl Loader<UserKey> for PgLoader {
    type Value = Arc<User>;
    type Error = String;

    async fn load(&self, keys: &[UserKey]) -> Result<HashMap<UserKey, Arc<User>>, String> {
        let idxs: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let rows = self.0.query(BATCH_USERS_SQL, &[&idxs]).await?;
        Ok(rows
            .iter()
            .map(|r| (UserKey(r.get(0)), Arc::new(to_user(r, 0))))
            .collect())
    }
}

/// One query for every key's list: the distinct parents, up to the largest bound, each
/// key's list then cut to its own bound. `parent_col`/`pos_col` locate the parent and the
/// position in a row.
async fn load_lists<K, T: Clone>(
    db: &Db,
    sql: &str,
    keys: &[K],
    list_key: impl Fn(&K) -> ListKey,
    (parent_col, pos_col): (usize, usize),
    map: impl Fn(&Row) -> T,
) -> Result<HashMap<K, Vec<T>>, String>
where
    K: Copy + Eq + Hash,
{
    let mut parents: Vec<i32> = Vec::with_capacity(keys.len());
    let mut bound = i32::MIN;
    for k in keys {
        let lk = list_key(k);
        if !parents.contains(&lk.parent) {
            parents.push(lk.parent);
        }
        bound = bound.max(lk.bound);
    }
    let rows = db.query(sql, &[&parents, &bound]).await?;
    let mut by_parent: HashMap<i32, Vec<(i32, T)>> = HashMap::new();
    for r in &rows {
        let parent: i32 = r.get(parent_col);
        by_parent
            .entry(parent)
            .or_default()
            .push((r.get(pos_col), map(r)));
    }
    Ok(keys
        .iter()
        .map(|k| {
            let lk = list_key(k);
            let list = by_parent
                .get(&lk.parent)
                .map(|entries| {
                    entries
                        .iter()
                        .filter(|(pos, _)| *pos < lk.bound)
                        .map(|(_, v)| v.clone())
                        .collect()
                })
                .unwrap_or_default();
            (*k, list)
        })
        .collect())
}

impl Loader<PostsKey> for PgLoader {
    type Value = Vec<Arc<Post>>;
    type Error = String;

    async fn load(&self, keys: &[PostsKey]) -> Result<HashMap<PostsKey, Self::Value>, String> {
        load_lists(
            &self.0,
            BATCH_POSTS_SQL,
            keys,
            |k| k.0,
            (1, 2),
            |r| Arc::new(to_post(r)),
        )
        .await
    }
}

impl Loader<CommentsKey> for PgLoader {
    type Value = Vec<CommentRow>;
    type Error = String;

    async fn load(
        &self,
        keys: &[CommentsKey],
    ) -> Result<HashMap<CommentsKey, Self::Value>, String> {
        load_lists(
            &self.0,
            BATCH_COMMENTS_SQL,
            keys,
            |k| k.0,
            (1, 2),
            to_comment,
        )
        .await
    }
}

impl Loader<FollowersKey> for PgLoader {
    type Value = Vec<Arc<User>>;
    type Error = String;

    async fn load(
        &self,
        keys: &[FollowersKey],
    ) -> Result<HashMap<FollowersKey, Self::Value>, String> {
        load_lists(
            &self.0,
            BATCH_FOLLOWERS_SQL,
            keys,
            |k| k.0,
            (0, 1),
            |r| Arc::new(to_user(r, 2)),
        )
        .await
    }
}
