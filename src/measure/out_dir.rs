//! The output folder of a run. Writing into a folder that holds an earlier run would
//! overwrite its results and mix both runs' logs, so a folder with files in it is refused
//! before anything starts. `--force` replaces an earlier run: it removes only the files a
//! run writes (results.json, report.md, report.html, logs/, the chart CSVs), and only when the folder is
//! a gqlbench run folder, never whatever else a mistyped --out may point at.
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::error::PlanError;

/// Whether `name` is something a run writes into its folder.
fn is_run_output(name: &str) -> bool {
    matches!(
        name,
        "results.json" | ".results.json.tmp" | "report.md" | "report.html" | "logs"
    ) || ((name.starts_with("sweep-") || name.starts_with("memory-")) && name.ends_with(".csv"))
}

/// Whether `dir/results.json` was written by gqlbench (it carries a schema version).
fn holds_results(dir: &Path) -> bool {
    fs::read(dir.join("results.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|v| v.get("schema_version").is_some())
}

/// Make `dir` ready for a new run: a missing or empty folder is fine; one with files is
/// refused unless `force`, which removes an earlier run's files from it. Returns what was
/// removed.
pub fn prepare(dir: &Path, force: bool) -> Result<Vec<PathBuf>> {
    let flag = "--out";
    let entries: Vec<(String, PathBuf)> = match fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) if dir.exists() && !dir.is_dir() => {
            return Err(PlanError::Flag {
                flag,
                message: format!(
                    "{} is a file, not a folder ({e}); give a folder for the run",
                    dir.display()
                ),
            }
            .into())
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
    };
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let foreign: Vec<&str> = entries
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !is_run_output(n))
        .collect();
    // Other files and no results.json: not a run folder, so --force must not delete
    // anything in it (a "logs" folder of someone's home directory, say).
    if !holds_results(dir) && !foreign.is_empty() {
        return Err(PlanError::Flag {
            flag,
            message: format!(
                "{} already holds files ({}) and is not a gqlbench run folder (no results.json); give a new or empty folder",
                dir.display(),
                foreign
                    .iter()
                    .take(5)
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
        .into());
    }
    if !force {
        return Err(PlanError::Flag {
            flag,
            message: format!(
                "{} already holds an earlier run; writing into it would overwrite its results and mix both runs' logs. Give a new or empty folder, or pass --force to replace that run (only its results, report, logs and charts are removed)",
                dir.display()
            ),
        }
        .into());
    }
    let mut removed = Vec::new();
    for (name, path) in entries {
        if !is_run_output(&name) {
            continue;
        }
        let r = if path.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        r.with_context(|| format!("--force: removing {} of the earlier run", path.display()))?;
        removed.push(path);
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_or_empty_folders_are_fine_and_files_are_refused() {
        let t = tempfile::tempdir().unwrap();
        assert!(prepare(&t.path().join("new"), false).unwrap().is_empty());
        assert!(prepare(t.path(), false).unwrap().is_empty());
        fs::write(t.path().join("notes.txt"), "mine").unwrap();
        let e = prepare(t.path(), false).unwrap_err().to_string();
        assert!(
            e.starts_with("--out:") && e.contains("'notes.txt'") && !e.contains("--force"),
            "{e}"
        );
        // Not a run folder: even --force leaves it alone.
        let e = prepare(t.path(), true).unwrap_err().to_string();
        assert!(e.contains("not a gqlbench run folder"), "{e}");
        assert!(t.path().join("notes.txt").exists());
        // A run killed before its first results.json left only its logs: that is a run.
        let killed = t.path().join("killed");
        fs::create_dir_all(killed.join("logs")).unwrap();
        let e = prepare(&killed, false).unwrap_err().to_string();
        assert!(e.contains("--force"), "{e}");
        assert_eq!(prepare(&killed, true).unwrap(), vec![killed.join("logs")]);
    }

    #[test]
    fn force_removes_only_what_a_run_wrote() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        fs::write(d.join("results.json"), r#"{"schema_version": 1}"#).unwrap();
        fs::write(d.join("report.md"), "#").unwrap();
        fs::write(d.join("report.html"), "<p>").unwrap();
        fs::write(d.join("sweep-stress.csv"), "").unwrap();
        fs::create_dir_all(d.join("logs")).unwrap();
        fs::write(d.join("logs/a.log"), "").unwrap();
        fs::write(d.join("README"), "kept").unwrap();
        let e = prepare(d, false).unwrap_err().to_string();
        assert!(e.contains("an earlier run") && e.contains("--force"), "{e}");
        let removed = prepare(d, true).unwrap();
        assert_eq!(removed.len(), 5);
        let left: Vec<_> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, vec!["README".to_string()]);
    }
}
