//! A variant's manifest (`base = "<target>"`) laid over its base's before it is read.
use std::path::Path;

use anyhow::Result;

use super::TargetFile;
use crate::catalog::parse_toml;
use crate::error::CatalogError;

/// A manifest with `base = "<target>"`: the base's table with this one's fields laid over
/// it (a table field merged key by key, one level deep), and whether it gives its own
/// `[install]`. None when there is no base.
pub(super) fn merged_with_base(manifest: &Path) -> Result<Option<(toml::Table, bool)>> {
    let own: toml::Table = parse_toml(manifest)?;
    let own_install = own.contains_key("install");
    let Some(base) = own.get("base") else {
        return Ok(None);
    };
    let bad = |message: String| CatalogError::File {
        file: manifest.to_path_buf(),
        message,
    };
    let Some(base) = base.as_str() else {
        return Err(
            bad("field `base` must be a target's name, e.g. \"apollo-router\"".into()).into(),
        );
    };
    let dir = manifest
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    let base_manifest = dir.join(base).join("target.toml");
    if !base_manifest.is_file() {
        return Err(bad(format!(
            "field `base` names '{base}', but there is no {}; name a target folder",
            base_manifest.display()
        ))
        .into());
    }
    // The base is read as a manifest of its own first, so that a fault in it is reported
    // in its file, with its line, rather than as one of every variant built on it.
    let _: TargetFile = parse_toml(&base_manifest)?;
    let mut merged: toml::Table = parse_toml(&base_manifest)?;
    if merged.contains_key("base") {
        return Err(bad(format!(
            "field `base` names '{base}', which has a base itself; name the target it is a variant of"
        ))
        .into());
    }
    for (k, v) in own {
        match (merged.get_mut(&k), v) {
            (Some(toml::Value::Table(into)), toml::Value::Table(from)) => into.extend(from),
            (_, v) => {
                merged.insert(k, v);
            }
        }
    }
    Ok(Some((merged, own_install)))
}
