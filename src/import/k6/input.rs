//! Opening k6's output files: plain or gzipped (k6 gzips an `--out json=FILE.gz`, as the
//! k6-operator runners of an export write theirs), told from the content, not the name.
//! And the check that no output is given twice, by path or under another name.
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error::ResultsError;

fn bad(file: &Path, message: String) -> anyhow::Error {
    ResultsError::Import {
        file: file.to_path_buf(),
        message,
    }
    .into()
}

/// The file's text, decompressed when it starts with gzip's magic bytes.
pub fn open(file: &Path) -> Result<Box<dyn BufRead>> {
    let f = std::fs::File::open(file).map_err(|e| bad(file, format!("cannot be read: {e}")))?;
    let mut r = BufReader::new(f);
    let head = r
        .fill_buf()
        .map_err(|e| bad(file, format!("cannot be read: {e}")))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(BufReader::new(
            flate2::bufread::MultiGzDecoder::new(r),
        )))
    } else {
        Ok(Box::new(r))
    }
}

/// An error reading inside a file: a gzip stream cut short (a runner killed before k6
/// closed its output) says so.
pub fn read_error(file: &Path, e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        bad(
            file,
            format!("is cut short ({e}): was k6 stopped before it closed its output, or the copy incomplete? Copy it again, or run again"),
        )
    } else {
        bad(file, format!("cannot be read as text: {e}"))
    }
}

/// How much of each file's text identifies it: k6 stamps every sample with its time to
/// the nanosecond, so two runs' outputs differ within their first lines.
const FINGERPRINT_BYTES: u64 = 64 * 1024;

/// Refuses a file given twice: the same path (however written), or the same k6 output
/// under another name (a copy, or gzipped and not).
pub fn check_distinct(files: &[PathBuf]) -> Result<()> {
    let mut paths: BTreeMap<PathBuf, &PathBuf> = BTreeMap::new();
    let mut prints: BTreeMap<Vec<u8>, &PathBuf> = BTreeMap::new();
    for f in files {
        // A file that cannot be read is named by the reader that needs it.
        let Ok(real) = std::fs::canonicalize(f) else {
            continue;
        };
        if let Some(first) = paths.insert(real, f) {
            return Err(bad(
                f,
                format!(
                    "is given twice (also as {}): each k6 output counts once; give it once",
                    first.display()
                ),
            ));
        }
        let mut head = Vec::new();
        open(f)?
            .take(FINGERPRINT_BYTES)
            .read_to_end(&mut head)
            .map_err(|e| read_error(f, e))?;
        if head.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(first) = prints.insert(head, f) {
            return Err(bad(
                f,
                format!(
                    "holds the same k6 output as {} (a copy?): each k6 output counts once; give one of them",
                    first.display()
                ),
            ));
        }
    }
    Ok(())
}
