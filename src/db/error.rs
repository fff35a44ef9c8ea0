//! Errors about the database a user can act on (like the domain errors of `crate::error`):
//! each says what is wrong and how to fix it. `PgBinaries::locate` returns them as they are
//! (the runner tells a machine without PostgreSQL from a failure by them); elsewhere they
//! travel inside `anyhow::Error`, where `downcast_ref` finds them.
use std::path::PathBuf;

use crate::units::fmt_bytes;

fn bytes(b: &u64) -> String {
    fmt_bytes(*b)
}

/// How to install the PostgreSQL server, for the errors that need it.
pub const INSTALL_HINT: &str = "install the PostgreSQL server (Debian/Ubuntu: `apt-get install postgresql`; Fedora/RHEL: `dnf install postgresql-server postgresql-contrib`; Arch: `pacman -S postgresql`; macOS: `brew install postgresql`) or set GQLBENCH_PG_BIN to the folder holding its `initdb` and `postgres`";

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("PostgreSQL server binaries not found: {what}; {INSTALL_HINT}")]
    MissingBinaries { what: String },
    #[error("GQLBENCH_PG_BIN={dir}: {what} not there; point GQLBENCH_PG_BIN at the folder holding the PostgreSQL server's `initdb` and `postgres` (e.g. /usr/lib/postgresql/15/bin), or unset it to search PATH and /usr/lib/postgresql/*/bin; to get them, {INSTALL_HINT}")]
    BadPgBin { dir: PathBuf, what: String },
    #[error("gqlbench runs as root and PostgreSQL refuses to, so the database server runs as the `postgres` system user, which does not exist here; create it (`useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/sh postgres`; the distribution's PostgreSQL package does this) or run gqlbench as an ordinary user")]
    NoPostgresUser,
    #[error("{dir} cannot be entered by the `{user}` user that runs PostgreSQL (mode {mode:o}); choose a folder it can reach with GQLBENCH_PG_DIR=/path (e.g. /tmp or /var/tmp)")]
    FolderNotReachable {
        dir: PathBuf,
        user: String,
        mode: u32,
    },
    #[error("database scale {scale} is below the minimum of {min} users: the benchmark's expected answers need the first 10,000 users and 100,000 posts; use a scale of at least {min}")]
    ScaleTooSmall { scale: u64, min: u64 },
    #[error("database scale {scale} is above the maximum of {max} users: comment ids (50 per user) must fit PostgreSQL's `integer`")]
    ScaleTooLarge { scale: u64, max: u64 },
    #[error("not enough disk space for a database of {scale} users in {dir}: it needs about {} and {} is free; choose a folder on a larger disk with GQLBENCH_PG_DIR=/path (the folder the throwaway database is made in), or a smaller scale", bytes(.needed), bytes(.free))]
    NotEnoughDisk {
        scale: u64,
        dir: PathBuf,
        needed: u64,
        free: u64,
    },
}
