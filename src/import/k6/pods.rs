//! Whether the JSON lines files are one run's every pod. The k6-operator tags every sample
//! of runner i (1 to N) with `instance_id=i`, and the export records N
//! (`gqlbench-export.json`: `parallelism`). A pod's file missing, one pod's samples in two
//! files, or files of different runs would each count a load that was not the scenario's:
//! all are refused, naming the file or the pod and what to give instead.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use super::points::FileInfo;
use crate::error::ResultsError;
use crate::export::plan::ExportMetadata;

fn bad(file: &Path, message: String) -> anyhow::Error {
    ResultsError::Import {
        file: file.to_path_buf(),
        message,
    }
    .into()
}

/// Checks the files against the export's pods; `meta` is the metadata file and what it
/// says. Returns a note for the report when there is something to say.
pub fn check(files: &[FileInfo], meta: Option<(&Path, &ExportMetadata)>) -> Result<Option<String>> {
    let Some(first) = files.first() else {
        return Ok(None);
    };
    // One pod's samples in two files: the same pod given twice.
    let mut owner: BTreeMap<u32, &Path> = BTreeMap::new();
    for f in files {
        for id in &f.instances {
            let n: u32 = id.parse().map_err(|_| {
                bad(
                    &f.path,
                    format!("a sample's instance_id tag is '{id}', not a k6-operator runner number (1 to N)"),
                )
            })?;
            if let Some(other) = owner.insert(n, &f.path) {
                return Err(bad(
                    &f.path,
                    format!(
                        "holds samples of runner pod {n} (tag instance_id={n}), as {} does: one pod's output given twice; give each pod's file once",
                        other.display()
                    ),
                ));
            }
        }
    }
    let tagged = files.iter().filter(|f| !f.instances.is_empty()).count();
    if tagged > 0 && tagged < files.len() {
        let untagged = files
            .iter()
            .find(|f| f.instances.is_empty())
            .unwrap_or(first);
        return Err(bad(
            &untagged.path,
            "has no instance_id tag while other files have one: it is not from the same k6-operator run; import each run on its own".into(),
        ));
    }
    overlap(files)?;
    let pods = meta.map_or(1, |(_, m)| m.parallelism.max(1));
    if tagged == 0 {
        // k6 run by hand: one process that ran the whole load, or every pod's file.
        return match (files.len() as u32, meta) {
            (1, _) => Ok(None),
            (n, Some((mf, _))) if n != pods => Err(bad(
                &first.path,
                format!(
                    "and the other files make {n} k6 outputs without instance_id tags, but the export ran on {pods} pod(s) ({}: parallelism): give the output of one k6 that ran the whole load, or of every pod",
                    mf.display()
                ),
            )),
            _ => Ok(None),
        };
    }
    // Runner numbers known: every one from 1 to N must be there.
    let expected = match meta {
        Some(_) => pods,
        None => owner.keys().max().copied().unwrap_or(1),
    };
    if let Some((&n, f)) = owner.iter().find(|(n, _)| **n == 0 || **n > expected) {
        let why = match meta {
            Some((mf, _)) => format!(
                "the export ran on {expected} pod(s) ({}: parallelism)",
                mf.display()
            ),
            None => "runner numbers start at 1".into(),
        };
        return Err(bad(
            f,
            format!("holds samples of runner pod {n}, but {why}: a file of another run?"),
        ));
    }
    let missing: Vec<String> = (1..=expected)
        .filter(|n| !owner.contains_key(n))
        .map(|n| n.to_string())
        .collect();
    if !missing.is_empty() {
        let from = match meta {
            Some(_) => format!("the export ran on {expected} pods: parallelism {expected}"),
            None => format!("the files hold runner pods up to {expected}"),
        };
        return Err(bad(
            meta.map_or(first.path.as_path(), |(mf, _)| mf),
            format!(
                "no samples of runner pod(s) {} ({from}; instance_id tags found: {}): a pod's output is missing, and without it the load is not the scenario's; give every pod's file (README.md: Collect and import)",
                missing.join(", "),
                owner.keys().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    Ok((expected > 1).then(|| format!("{expected} k6-operator runner pods merged")))
}

/// Every file's measured requests overlap the others' in time: pods of one run start
/// together, so a file whose requests all came before another's began is another run's.
fn overlap(files: &[FileInfo]) -> Result<()> {
    let spans: Vec<_> = files
        .iter()
        .filter_map(|f| Some((f, f.first?, f.last?)))
        .collect();
    let Some(&(late, start, _)) = spans.iter().max_by_key(|(_, a, _)| *a) else {
        return Ok(());
    };
    if let Some(&(early, _, end)) = spans.iter().min_by_key(|(_, _, b)| *b) {
        if end < start {
            return Err(bad(
                &late.path,
                format!(
                    "its measured requests start at {start}, after those of {} ended ({end}): not the same run; import each run on its own",
                    early.path.display()
                ),
            ));
        }
    }
    Ok(())
}
