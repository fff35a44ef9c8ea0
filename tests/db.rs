//! The throwaway PostgreSQL server: lifecycle, seeded data equal to the Node targets'
//! in-memory data, exact statement counts, cleanup after stop and after the server was
//! killed, and the errors a user can act on. Each test skips (saying why) only when the
//! PostgreSQL server programs are not installed, and fails then under GQLBENCH_CI=1.
mod common;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use gqlbench::db::{self, Database, DbError, DbOptions, PgBinaries};
use serde_json::{json, Value};
use tokio_postgres::NoTls;

use common::require;

/// The PostgreSQL server programs as gqlbench finds them (GQLBENCH_PG_BIN, PATH, Debian's
/// folder); None when they are missing and the test may skip (a failure in CI).
fn binaries() -> Option<PgBinaries> {
    match PgBinaries::locate() {
        Ok(b) => Some(b),
        Err(e) => {
            require(false, &format!("PostgreSQL is not installed here: {e}"));
            None
        }
    }
}

fn start(dir: &Path) -> Database {
    Database::start(DbOptions {
        dir: Some(dir.to_path_buf()),
        ..DbOptions::default()
    })
    .expect("starting PostgreSQL")
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A connection as the targets make it (the `gqlbench` role, from the URL).
async fn target_client(db: &Database) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(&db.url(), NoTls).await.unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    client
}

/// The process has ended: gone from /proc, or a zombie waiting for init to reap it (a
/// child of a killed postmaster is reparented to init).
fn ended(pid: i32) -> bool {
    for _ in 0..150 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(s)
                if s.rsplit(')')
                    .next()
                    .map(|r| r.trim_start().starts_with('Z'))
                    == Some(true) =>
            {
                return true
            }
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    false
}

fn gqlbench_folders(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().map(String::from))
                .filter(|n| n.starts_with("gqlbench-pg-"))
                .collect()
        })
        .unwrap_or_default()
}

/// What `targets/_node/social.mjs` holds, as JSON, from Node itself.
fn js_samples() -> Value {
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("targets/_node/social.mjs");
    let url = format!("file://{}", module.display());
    let script = format!(
        "import * as s from {};
const R = s.socialResolvers;
console.log(JSON.stringify({{
  users: [s.users[0], s.users[1], s.users[9999]],
  posts: [...s.posts.slice(0, 64), s.posts[12345], s.posts[99999]],
  comments: R.Post.comments(s.posts[12345], {{}}),
  followers: R.User.followers(s.users[4321], {{}}).map((u) => u.index),
  trending: R.Query.trendingPosts(null, {{ limit: 50 }}).map((p) => p.index),
}}));",
        serde_json::to_string(&url).unwrap()
    );
    let out = Command::new("node")
        .args(["--input-type=module", "-e", &script])
        .output()
        .expect("running node (Node.js is needed by the benchmark's targets)");
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const ISO: &str = r#"to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#;

/// The same samples read from the database (as the gqlbench role), shaped like the JS
/// objects (ids and names derived as the targets derive them).
async fn db_samples(c: &tokio_postgres::Client) -> Value {
    let users = c
        .query(
            &format!(
                "SELECT idx, first_name, last_name, email, {ISO} FROM users WHERE idx = ANY($1) ORDER BY idx"
            ),
            &[&vec![0i32, 1, 9999]],
        )
        .await
        .unwrap();
    let users: Vec<Value> = users
        .iter()
        .map(|r| {
            let idx: i32 = r.get(0);
            let (first, last): (String, String) = (r.get(1), r.get(2));
            json!({
                "index": idx, "id": format!("bench-user-{idx}"), "name": format!("{first} {last}"),
                "email": r.get::<_, String>(3), "firstName": first, "lastName": last,
                "createdAt": r.get::<_, String>(4),
            })
        })
        .collect();
    let posts = c
        .query(
            &format!(
                "SELECT idx, author_idx, title, content, {}, view_count, pos FROM posts WHERE idx = ANY($1) ORDER BY idx",
                ISO.replace("created_at", "published_at")
            ),
            // Posts 0..64 use every entry of the content pool (13 is coprime with 64).
            &[&(0..64).chain([12345, 99999]).collect::<Vec<i32>>()],
        )
        .await
        .unwrap();
    let posts: Vec<Value> = posts
        .iter()
        .map(|r| {
            let idx: i32 = r.get(0);
            json!({
                "index": idx, "id": format!("post-{idx}"), "title": r.get::<_, String>(2),
                "content": r.get::<_, String>(3), "publishedAt": r.get::<_, String>(4),
                "viewCount": r.get::<_, i32>(5), "authorIndex": r.get::<_, i32>(1),
            })
        })
        .collect();
    let comments: Vec<Value> = c
        .query(
            "SELECT idx, text, author_idx FROM comments WHERE post_idx = 12345 ORDER BY pos",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| {
            json!({
                "id": format!("comment-{}", r.get::<_, i32>(0)),
                "text": r.get::<_, String>(1), "authorIndex": r.get::<_, i32>(2),
            })
        })
        .collect();
    let followers: Vec<i32> = c
        .query(
            "SELECT follower_idx FROM followers WHERE user_idx = 4321 ORDER BY pos",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let trending: Vec<i32> = c
        .query("SELECT post_idx FROM trending ORDER BY rank", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    json!({ "users": users, "posts": posts, "comments": comments, "followers": followers, "trending": trending })
}

#[test]
fn lifecycle_seed_matches_the_node_data() {
    if binaries().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut db = start(tmp.path());
    assert!(db.port() > 0);
    assert_eq!(
        db.url(),
        format!("postgres://gqlbench@127.0.0.1:{}/gqlbench", db.port())
    );
    assert!(db.server_version().chars().next().unwrap().is_ascii_digit());
    assert!(db.data_dir().join("PG_VERSION").exists());
    let folder = db.folder().to_path_buf();
    assert!(folder.starts_with(tmp.path()));
    let pid = db.pid();
    let procs = db.processes();
    assert!(
        procs.contains(&pid) && procs.len() > 3,
        "postmaster and its workers: {procs:?}"
    );

    let seen = Mutex::new(Vec::new());
    let report = db
        .seed(db::DEFAULT_SCALE, &|done, total| {
            seen.lock().unwrap().push((done, total))
        })
        .unwrap();
    eprintln!(
        "seeded {} rows in {:.2} s; database {} bytes, data folder {} bytes; {:?}",
        report.rows, report.seconds, report.database_bytes, report.data_dir_bytes, report.tables
    );
    let seen = seen.into_inner().unwrap();
    assert!(
        seen.windows(2).all(|w| w[0].0 <= w[1].0),
        "progress only grows"
    );
    assert_eq!(seen.last(), Some(&(860_050, 860_050)));
    let rows: Vec<(String, u64)> = report
        .tables
        .iter()
        .map(|t| (t.name.clone(), t.rows))
        .collect();
    let expected: Vec<(String, u64)> = [
        ("users", 10_000),
        ("posts", 100_000),
        ("comments", 500_000),
        ("followers", 250_000),
        ("trending", 50),
    ]
    .iter()
    .map(|(n, r)| (n.to_string(), *r))
    .collect();
    assert_eq!(rows, expected);
    assert!(report.database_bytes > 50 << 20 && report.data_dir_bytes > report.database_bytes);
    // A second seed is refused.
    assert!(db.seed(db::DEFAULT_SCALE, &|_, _| {}).is_err());

    let js = js_samples();
    let rt = rt();
    let (counts, indexes, owners, from_db) = rt.block_on(async {
        let c = target_client(&db).await;
        let mut counts = Vec::new();
        for (t, _) in &expected {
            let n: i64 = c
                .query_one(&format!("SELECT count(*) FROM {t}"), &[])
                .await
                .unwrap()
                .get(0);
            counts.push((t.clone(), n as u64));
        }
        let indexes: Vec<String> = c
            .query(
                "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let owners: Vec<String> = c
            .query(
                "SELECT DISTINCT tableowner::text FROM pg_tables WHERE schemaname = 'public'",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        (counts, indexes, owners, db_samples(&c).await)
    });
    assert_eq!(counts, expected);
    assert_eq!(
        indexes,
        [
            "comments_by_post",
            "comments_pkey",
            "followers_pkey",
            "posts_by_author",
            "posts_pkey",
            "trending_pkey",
            "users_pkey"
        ]
    );
    assert_eq!(owners, ["gqlbench"]);
    assert_eq!(
        from_db,
        js,
        "database rows differ from social.mjs:\ndb: {}\njs: {}",
        serde_json::to_string_pretty(&from_db).unwrap(),
        serde_json::to_string_pretty(&js).unwrap()
    );

    drop(rt);
    let procs = db.processes();
    db.stop().unwrap();
    assert!(!folder.exists());
    for p in procs {
        assert!(ended(p), "pid {p} still there");
    }
}

#[test]
fn statements_of_the_targets_are_counted_exactly() {
    if binaries().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut db = start(tmp.path());
    let rt = rt();
    let before = db.queries_executed().unwrap();
    // Reading the count (as the superuser) does not count.
    assert_eq!(db.queries_executed().unwrap(), before);
    rt.block_on(async {
        let c = target_client(&db).await;
        for i in 0..20i32 {
            // Extended protocol (prepare + execute): one statement each.
            let r = c.query_one("SELECT $1::int + 1", &[&i]).await.unwrap();
            assert_eq!(r.get::<_, i32>(0), i + 1);
        }
        for _ in 0..10 {
            c.simple_query("SELECT 2").await.unwrap();
        }
        // Transaction control and settings are not data statements (track_utility=off).
        c.batch_execute("BEGIN; SET LOCAL work_mem = '8MB'; COMMIT")
            .await
            .unwrap();
    });
    // Read right after the last answer: nothing may be missing.
    assert_eq!(db.queries_executed().unwrap() - before, 30);

    // Several connections at once, as a pool does.
    let before = db.queries_executed().unwrap();
    rt.block_on(async {
        let mut tasks = Vec::new();
        for k in 0..4i32 {
            let c = target_client(&db).await;
            tasks.push(tokio::spawn(async move {
                for i in 0..25i32 {
                    c.query_one("SELECT $1::int * $2::int", &[&i, &k])
                        .await
                        .unwrap();
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
    assert_eq!(db.queries_executed().unwrap() - before, 100);

    // Inside an open transaction, an extended-protocol SELECT is recorded when its portal is
    // closed (the next statement or the end of the transaction): complete once it commits.
    let before = db.queries_executed().unwrap();
    let c = rt.block_on(async {
        let c = target_client(&db).await;
        c.batch_execute("BEGIN").await.unwrap();
        for i in 0..5i32 {
            c.query_one("SELECT $1::int", &[&i]).await.unwrap();
        }
        c
    });
    assert_eq!(db.queries_executed().unwrap() - before, 4);
    rt.block_on(c.batch_execute("COMMIT")).unwrap();
    assert_eq!(db.queries_executed().unwrap() - before, 5);
    assert_eq!(db.statement_evictions().unwrap(), 0);

    // A scale below the minimum is refused by seed too, and nothing was loaded.
    let e = db.seed(9_999, &|_, _| {}).unwrap_err();
    assert!(
        matches!(e.downcast_ref(), Some(DbError::ScaleTooSmall { .. })),
        "{e:#}"
    );
    drop(rt);
    db.stop().unwrap();
}

#[test]
fn stop_removes_the_folder_and_every_process() {
    if binaries().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut db = start(tmp.path());
    let folder = db.folder().to_path_buf();
    let members = db.processes();
    assert!(
        members.contains(&db.pid()) && members.len() > 3,
        "{members:?}"
    );
    let usage = db.usage();
    assert_eq!(usage.processes, members.len());
    assert!(usage.rss_bytes > 0);
    // An interrupted seed (Ctrl-C) stops early with an error, and the database still stops.
    let calls = Mutex::new(0);
    let e = db
        .seed_cancellable(
            db::DEFAULT_SCALE,
            &|_, _| *calls.lock().unwrap() += 1,
            &|| *calls.lock().unwrap() > 3,
        )
        .unwrap_err();
    assert!(format!("{e:#}").contains("interrupted"), "{e:#}");
    assert!(*calls.lock().unwrap() < 20);
    db.stop().unwrap();
    assert!(!folder.exists());
    assert!(gqlbench_folders(tmp.path()).is_empty());
    for m in members {
        assert!(ended(m), "pid {m} still there");
    }
    // Stopping again is harmless; queries after a stop are errors, not panics.
    db.stop().unwrap();
    assert!(db.queries_executed().is_err());
    assert_eq!(db.pid(), 0);
}

#[test]
fn a_killed_server_is_still_cleaned_up() {
    if binaries().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for use_drop in [false, true] {
        let mut db = start(tmp.path());
        let (pid, folder) = (db.pid(), db.folder().to_path_buf());
        // A target's connection is open (a backend of the server) when it dies.
        let rt = rt();
        let client = rt.block_on(target_client(&db));
        let members = db.processes();
        // SAFETY: SIGKILL to the postmaster this test started.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(200));
        assert!(db.exited().is_some());
        assert!(db.queries_executed().is_err());
        if use_drop {
            drop(db);
        } else {
            db.stop().unwrap();
        }
        assert!(!folder.exists());
        for m in &members {
            assert!(ended(*m), "pid {m} still there");
        }
        drop(client);
    }
    assert!(gqlbench_folders(tmp.path()).is_empty());
}

#[test]
fn folders_of_a_dead_gqlbench_are_removed_at_start() {
    if binaries().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // A pid above the kernel's maximum (4194304) is never alive.
    let stale = tmp.path().join("gqlbench-pg-99999999-3");
    std::fs::create_dir_all(stale.join("data/base")).unwrap();
    let mut db = start(tmp.path());
    assert!(!stale.exists());
    assert_eq!(gqlbench_folders(tmp.path()).len(), 1);
    db.stop().unwrap();
}

#[test]
fn a_scale_that_cannot_fit_the_disk_is_refused_before_starting() {
    if binaries().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let e = Database::start(DbOptions {
        dir: Some(tmp.path().to_path_buf()),
        scale: Some(10_000_000_000),
        ..DbOptions::default()
    })
    .err()
    .expect("refused");
    match e.downcast_ref::<DbError>() {
        Some(DbError::NotEnoughDisk {
            needed, free, dir, ..
        }) => {
            assert!(needed > free);
            assert_eq!(dir, tmp.path());
        }
        other => panic!("expected NotEnoughDisk, got {other:?}: {e:#}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("needs about") && msg.contains("free"), "{msg}");
    assert!(msg.contains(&tmp.path().display().to_string()), "{msg}");
    assert!(msg.contains("GQLBENCH_PG_DIR"), "{msg}");
    // Nothing was made.
    assert!(gqlbench_folders(tmp.path()).is_empty());
}

#[test]
fn a_scale_below_the_minimum_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let e = db::check_scale_and_disk(9_999, tmp.path()).unwrap_err();
    assert!(e.to_string().contains("at least 10000"), "{e:#}");
    if binaries().is_none() {
        return;
    }
    let e = Database::start(DbOptions {
        dir: Some(tmp.path().to_path_buf()),
        scale: Some(100),
        ..DbOptions::default()
    })
    .err()
    .expect("refused");
    assert!(
        matches!(
            e.downcast_ref(),
            Some(DbError::ScaleTooSmall { scale: 100, .. })
        ),
        "{e:#}"
    );
    assert!(gqlbench_folders(tmp.path()).is_empty());
}

/// GQLBENCH_PG_BIN is read from the environment, which is process-wide: the start is run in
/// a child process of this test binary with the variable set.
#[test]
fn missing_binaries_name_the_variable_and_the_install_command() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "start_in_child_process",
            "--ignored",
            "--nocapture",
        ])
        .env("GQLBENCH_PG_BIN", &empty)
        .env("GQLBENCH_PG_DIR", tmp.path())
        .env("GQLBENCH_DB_TEST_CHILD", "1")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("START ERROR: "))
        .unwrap_or_else(|| panic!("no error printed: {text}"));
    assert!(line.contains("GQLBENCH_PG_BIN"), "{line}");
    assert!(line.contains(&empty.display().to_string()), "{line}");
    assert!(line.contains("apt-get install postgresql"), "{line}");
    assert!(line.contains("dnf install postgresql-server"), "{line}");
    assert!(gqlbench_folders(tmp.path()).is_empty());
}

/// A gqlbench that is SIGKILLed: the kernel kills its server (parent-death signal), and the
/// next start in the same folder removes what it left.
#[test]
fn the_server_of_a_killed_gqlbench_dies_and_its_folder_is_removed_later() {
    if binaries().is_none() {
        return;
    }
    use std::io::{BufRead, BufReader};
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "start_in_child_process",
            "--ignored",
            "--nocapture",
        ])
        .env("GQLBENCH_PG_DIR", tmp.path())
        .env("GQLBENCH_DB_TEST_CHILD", "hold")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut started = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("STARTED ") {
            let (pid, folder) = rest.split_once(' ').unwrap();
            started = Some((pid.parse::<i32>().unwrap(), folder.to_string()));
            break;
        }
        assert!(!line.starts_with("START ERROR"), "{line}");
    }
    let (postmaster, folder) = started.expect("the child started a server");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        ended(postmaster),
        "postmaster {postmaster} outlived gqlbench"
    );
    assert!(Path::new(&folder).exists());
    let mut db = start(tmp.path());
    assert!(!Path::new(&folder).exists(), "{folder} left behind");
    assert_eq!(gqlbench_folders(tmp.path()).len(), 1);
    db.stop().unwrap();
}

#[test]
#[ignore = "run by the tests that need another process"]
fn start_in_child_process() {
    match std::env::var("GQLBENCH_DB_TEST_CHILD").as_deref() {
        Ok("1") => match Database::start(DbOptions::default()) {
            Ok(_) => println!("START OK"),
            Err(e) => println!("START ERROR: {e:#}"),
        },
        Ok("hold") => match Database::start(DbOptions::default()) {
            Ok(db) => {
                println!("STARTED {} {}", db.pid(), db.folder().display());
                std::thread::sleep(Duration::from_secs(60));
            }
            Err(e) => println!("START ERROR: {e:#}"),
        },
        _ => {}
    }
}

/// Seed time at another scale (for docs): `GQLBENCH_DB_SCALE=100000 [GQLBENCH_DB_CPUS=1]
/// cargo test --release --test db -- --ignored --nocapture measure_seed`.
#[test]
#[ignore = "a measurement, minutes at large scales"]
fn measure_seed() {
    if binaries().is_none() {
        return;
    }
    let scale: u64 = std::env::var("GQLBENCH_DB_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(db::DEFAULT_SCALE);
    // GQLBENCH_DB_CPUS=1 pins the server as the runner does.
    let cpus = std::env::var("GQLBENCH_DB_CPUS")
        .ok()
        .map(|c| gqlbench::sys::cpus::CpuSet::parse(&c).unwrap());
    let mut db = Database::start(DbOptions {
        scale: Some(scale),
        cpus,
        ..DbOptions::default()
    })
    .unwrap();
    eprintln!(
        "PostgreSQL {} on port {}, folder {}",
        db.server_version(),
        db.port(),
        db.folder().display()
    );
    let last = Mutex::new(std::time::Instant::now());
    let report = db
        .seed(scale, &|done, total| {
            let mut l = last.lock().unwrap();
            if l.elapsed() > Duration::from_secs(10) {
                eprintln!("  {done} / {total} rows");
                *l = std::time::Instant::now();
            }
        })
        .unwrap();
    eprintln!("{}", serde_json::to_string_pretty(&report).unwrap());
    eprintln!(
        "estimate for this scale: {} bytes; per user measured: {} bytes (tables), {} bytes (data folder)",
        db::estimate_bytes(scale),
        report.tables.iter().map(|t| t.bytes).sum::<u64>() / scale,
        report.data_dir_bytes / scale
    );
    db.stop().unwrap();
}
