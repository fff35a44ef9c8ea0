//! Loading the social data into the database with binary COPY.
//!
//! Each table is created, filled with `COPY ... (FORMAT binary, FREEZE)`, given its primary
//! key and index, and committed in ONE transaction on its own connection: with
//! `wal_level=minimal` PostgreSQL then writes no WAL for the rows or the index builds, and
//! FREEZE stores the rows already frozen and visible, so no later VACUUM rewrites them
//! during a trial. Indexes are built after the load (one sort instead of 50M insertions).
//! Tables load concurrently, which helps when the server has more than one CPU.
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context, Result};
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::Client;

use super::data;

/// The schema, exactly as targets expect it (primary keys and indexes are added after the
/// load, with the names PostgreSQL gives inline ones).
pub const SCHEMA: &str = "\
CREATE TABLE users (idx integer PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL, email text NOT NULL, created_at timestamptz NOT NULL);
CREATE TABLE posts (idx integer PRIMARY KEY, author_idx integer NOT NULL, pos integer NOT NULL, title text NOT NULL, content text NOT NULL, published_at timestamptz NOT NULL, view_count integer NOT NULL);
CREATE INDEX posts_by_author ON posts (author_idx, pos);
CREATE TABLE comments (idx integer PRIMARY KEY, post_idx integer NOT NULL, pos integer NOT NULL, text text NOT NULL, author_idx integer NOT NULL);
CREATE INDEX comments_by_post ON comments (post_idx, pos);
CREATE TABLE followers (user_idx integer NOT NULL, pos integer NOT NULL, follower_idx integer NOT NULL, PRIMARY KEY (user_idx, pos));
CREATE TABLE trending (rank integer PRIMARY KEY, post_idx integer NOT NULL);
";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    Users,
    Posts,
    Comments,
    Followers,
    Trending,
}

struct TableDef {
    name: &'static str,
    create: &'static str,
    columns: &'static str,
    types: &'static [Type],
    /// Run after the load, in the same transaction.
    keys: &'static str,
}

fn def(t: Table) -> TableDef {
    match t {
        Table::Users => TableDef {
            name: "users",
            create: "CREATE TABLE users (idx integer NOT NULL, first_name text NOT NULL, last_name text NOT NULL, email text NOT NULL, created_at timestamptz NOT NULL)",
            columns: "idx, first_name, last_name, email, created_at",
            types: &[Type::INT4, Type::TEXT, Type::TEXT, Type::TEXT, Type::TIMESTAMPTZ],
            keys: "ALTER TABLE users ADD PRIMARY KEY (idx)",
        },
        Table::Posts => TableDef {
            name: "posts",
            create: "CREATE TABLE posts (idx integer NOT NULL, author_idx integer NOT NULL, pos integer NOT NULL, title text NOT NULL, content text NOT NULL, published_at timestamptz NOT NULL, view_count integer NOT NULL)",
            columns: "idx, author_idx, pos, title, content, published_at, view_count",
            types: &[
                Type::INT4,
                Type::INT4,
                Type::INT4,
                Type::TEXT,
                Type::TEXT,
                Type::TIMESTAMPTZ,
                Type::INT4,
            ],
            keys: "ALTER TABLE posts ADD PRIMARY KEY (idx); CREATE INDEX posts_by_author ON posts (author_idx, pos)",
        },
        Table::Comments => TableDef {
            name: "comments",
            create: "CREATE TABLE comments (idx integer NOT NULL, post_idx integer NOT NULL, pos integer NOT NULL, text text NOT NULL, author_idx integer NOT NULL)",
            columns: "idx, post_idx, pos, text, author_idx",
            types: &[Type::INT4, Type::INT4, Type::INT4, Type::TEXT, Type::INT4],
            keys: "ALTER TABLE comments ADD PRIMARY KEY (idx); CREATE INDEX comments_by_post ON comments (post_idx, pos)",
        },
        Table::Followers => TableDef {
            name: "followers",
            create: "CREATE TABLE followers (user_idx integer NOT NULL, pos integer NOT NULL, follower_idx integer NOT NULL)",
            columns: "user_idx, pos, follower_idx",
            types: &[Type::INT4, Type::INT4, Type::INT4],
            keys: "ALTER TABLE followers ADD PRIMARY KEY (user_idx, pos)",
        },
        Table::Trending => TableDef {
            name: "trending",
            create: "CREATE TABLE trending (rank integer NOT NULL, post_idx integer NOT NULL)",
            columns: "rank, post_idx",
            types: &[Type::INT4, Type::INT4],
            keys: "ALTER TABLE trending ADD PRIMARY KEY (rank)",
        },
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TableReport {
    pub name: String,
    pub rows: u64,
    /// Heap, TOAST and indexes (`pg_total_relation_size`).
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SeedReport {
    /// Users loaded.
    pub scale: u64,
    pub tables: Vec<TableReport>,
    pub rows: u64,
    pub seconds: f64,
    /// `pg_database_size('gqlbench')` after the load.
    pub database_bytes: u64,
    /// The whole data folder on disk (catalogs, WAL, every database) after the load.
    pub data_dir_bytes: u64,
}

/// Rows done so far, shared by the concurrent loads, reported every `STEP` rows.
struct Progress<'a> {
    done: AtomicU64,
    total: u64,
    report: &'a (dyn Fn(u64, u64) + Sync),
    cancelled: &'a (dyn Fn() -> bool + Sync),
}

const STEP: u64 = 20_000;

impl Progress<'_> {
    /// Count `n` more rows; an error once the run is cancelled (which aborts the load: the
    /// unfinished COPY and its transaction are rolled back when the connections close).
    fn add(&self, n: u64) -> Result<()> {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        (self.report)(done, self.total);
        if (self.cancelled)() {
            bail!("seeding the database was interrupted");
        }
        Ok(())
    }
}

fn int(v: u64) -> Result<i32> {
    i32::try_from(v).with_context(|| format!("{v} does not fit PostgreSQL's integer"))
}

fn time(ms: i64) -> SystemTime {
    // Every timestamp is after 1970 (the data starts in 2020).
    SystemTime::UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64)
}

/// Load every table for `scale` users, one table per connection (superuser connections to
/// the gqlbench database); the tables end up owned by `owner`.
pub async fn seed(
    clients: &[Client; 5],
    scale: u64,
    owner: &str,
    progress: &(dyn Fn(u64, u64) + Sync),
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<(Vec<TableReport>, f64)> {
    let started = Instant::now();
    let total = data::row_counts(scale).iter().map(|r| r.1).sum();
    let p = Progress {
        done: AtomicU64::new(0),
        total,
        report: progress,
        cancelled,
    };
    (p.report)(0, total);
    let pool = data::content_pool();
    let [c1, c2, c3, c4, c5] = clients;
    let (users, posts, comments, followers, trending) = tokio::try_join!(
        load(c1, Table::Users, scale, &pool, owner, &p),
        load(c2, Table::Posts, scale, &pool, owner, &p),
        load(c3, Table::Comments, scale, &pool, owner, &p),
        load(c4, Table::Followers, scale, &pool, owner, &p),
        load(c5, Table::Trending, scale, &pool, owner, &p),
    )?;
    // Settle the new pages on disk now, so no checkpoint writes them during a trial.
    c1.batch_execute("CHECKPOINT")
        .await
        .context("CHECKPOINT after the load")?;
    let seconds = started.elapsed().as_secs_f64();
    let mut tables = Vec::new();
    for (t, rows) in [
        (Table::Users, users),
        (Table::Posts, posts),
        (Table::Comments, comments),
        (Table::Followers, followers),
        (Table::Trending, trending),
    ] {
        let name = def(t).name;
        let row = c1
            .query_one(
                "SELECT pg_total_relation_size($1::text::regclass)",
                &[&name],
            )
            .await
            .with_context(|| format!("size of table {name}"))?;
        let bytes: i64 = row.try_get(0)?;
        tables.push(TableReport {
            name: name.to_string(),
            rows,
            bytes: bytes.max(0) as u64,
        });
    }
    Ok((tables, seconds))
}

async fn load(
    client: &Client,
    t: Table,
    scale: u64,
    pool: &[String],
    owner: &str,
    progress: &Progress<'_>,
) -> Result<u64> {
    let d = def(t);
    // Index builds sort in memory up to this much (per load) instead of in temporary files;
    // it is a setting of this session only, not of the server the targets use.
    client
        .batch_execute(&format!(
            "SET maintenance_work_mem = '256MB'; BEGIN; {}",
            d.create
        ))
        .await
        .with_context(|| format!("creating table {}", d.name))?;
    let sink = client
        .copy_in(&format!(
            "COPY {} ({}) FROM STDIN (FORMAT binary, FREEZE)",
            d.name, d.columns
        ))
        .await
        .with_context(|| format!("starting COPY into {}", d.name))?;
    let mut w = pin!(BinaryCopyInWriter::new(sink, d.types));
    let mut pending = 0u64;
    macro_rules! row {
        ($($v:expr),+) => {{
            let values: &[&(dyn ToSql + Sync)] = &[$(&$v),+];
            w.as_mut().write(values).await.with_context(|| format!("COPY into {}", d.name))?;
            pending += 1;
            if pending == STEP {
                progress.add(pending)?;
                pending = 0;
            }
        }};
    }
    match t {
        Table::Users => {
            for u in 0..scale {
                let r = data::user(u);
                row!(
                    int(u)?,
                    r.first_name,
                    r.last_name,
                    r.email,
                    time(r.created_at_ms)
                );
            }
        }
        Table::Posts => {
            for p in 0..scale * data::POSTS_PER_USER {
                let r = data::post(p);
                let content = pool.get(r.content).map(String::as_str).unwrap_or("");
                row!(
                    int(p)?,
                    int(r.author_idx)?,
                    int(r.pos)?,
                    r.title,
                    content,
                    time(r.published_at_ms),
                    int(r.view_count)?
                );
            }
        }
        Table::Comments => {
            for p in 0..scale * data::POSTS_PER_USER {
                for k in 0..data::COMMENTS_PER_POST {
                    let r = data::comment(p, k);
                    row!(int(r.idx)?, int(p)?, int(k)?, r.text, int(r.author_idx)?);
                }
            }
        }
        Table::Followers => {
            for u in 0..scale {
                for k in 0..data::FOLLOWERS_PER_USER {
                    row!(int(u)?, int(k)?, int(data::follower(u, k))?);
                }
            }
        }
        Table::Trending => {
            for k in 0..data::TRENDING_COUNT {
                row!(int(k)?, int(data::trending(k))?);
            }
        }
    }
    let rows = w
        .finish()
        .await
        .with_context(|| format!("finishing COPY into {}", d.name))?;
    progress.add(pending)?;
    client
        .batch_execute(&format!(
            "{}; ALTER TABLE {} OWNER TO \"{owner}\"; COMMIT",
            d.keys, d.name
        ))
        .await
        .with_context(|| format!("indexing table {}", d.name))?;
    // Statistics for the planner, the visibility map for index-only scans, and the insert
    // counter reset so autovacuum does not start on these tables during a trial.
    client
        .batch_execute(&format!("VACUUM (ANALYZE) {}", d.name))
        .await
        .with_context(|| format!("VACUUM ANALYZE {}", d.name))?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_definitions_match_the_schema() {
        // Each table of SCHEMA is created by a load with the same columns, and gets the
        // same keys and indexes after it.
        for t in [
            Table::Users,
            Table::Posts,
            Table::Comments,
            Table::Followers,
            Table::Trending,
        ] {
            let d = def(t);
            let line = SCHEMA
                .lines()
                .find(|l| l.starts_with(&format!("CREATE TABLE {} (", d.name)))
                .unwrap();
            let plain = line
                .replace(" PRIMARY KEY,", " NOT NULL,")
                .replace(" PRIMARY KEY)", " NOT NULL)");
            let plain = match plain.find(", PRIMARY KEY (") {
                Some(i) => format!("{});", &plain[..i]),
                None => plain,
            };
            assert_eq!(format!("{};", d.create), plain, "{}", d.name);
            assert_eq!(d.columns.split(", ").count(), d.types.len());
        }
    }
}
