//! How much disk a scale needs, from per-row sizes measured on real seeds (PostgreSQL 15,
//! 8 KiB pages), and the check against the free space of the folder.
use std::path::Path;

use anyhow::Result;

use super::error::DbError;
use super::folder;

/// Bytes on disk per user of the scale, heap + indexes of every table (10 posts, 50 comments
/// and 25 follower rows per user), from `pg_total_relation_size` after seeds: 14,322 at
/// 10,000 users, 14,302 at 100,000 and 14,357 at 1,000,000 (whose whole data folder,
/// WAL and catalogs included, was 14,423 per user).
pub const BYTES_PER_USER: u64 = 14_500;
/// The biggest single index build (comments: primary key + comments_by_post) sorts through
/// temporary files of about its size before the index exists; per user.
pub const SORT_BYTES_PER_USER: u64 = 3_000;
/// An empty cluster (catalogs of three databases, first WAL segments).
pub const BASE_BYTES: u64 = 64 << 20;
/// WAL the server may keep between checkpoints (max_wal_size is 1 GiB by default); the bulk
/// load itself writes almost none (wal_level=minimal).
pub const WAL_BYTES: u64 = 1 << 30;

/// Bytes a database of `scale` users needs while it is seeded, with 10% to spare.
pub fn estimate_bytes(scale: u64) -> u64 {
    let data = scale.saturating_mul(BYTES_PER_USER + SORT_BYTES_PER_USER);
    data.saturating_add(data / 10)
        .saturating_add(BASE_BYTES)
        .saturating_add(WAL_BYTES)
}

/// Refuse a scale whose database would not fit in `dir` (which must exist).
pub fn check_disk(dir: &Path, scale: u64) -> Result<()> {
    let needed = estimate_bytes(scale);
    let free = folder::free_bytes(dir)?;
    if needed > free {
        return Err(DbError::NotEnoughDisk {
            scale,
            dir: dir.to_path_buf(),
            needed,
            free,
        }
        .into());
    }
    Ok(())
}
