//! A variant's manifest (`base = "<target>"`) laid over its base's before it is read.
use std::path::Path;

use anyhow::Result;

use super::TargetFile;
use crate::catalog::parse_toml;
use crate::error::CatalogError;

/// A manifest with `base = "<target>"`: the base's table with this one's fields laid over
/// it (a table field merged key by key, one level deep), and whether it gives its own
/// `[install]`. None when there is no base. A variant starts in its own folder, so a
/// relative `start.config` it inherits is rewritten to the base's file
/// (`../<base>/<file>`): a variant that only renames its base (an A/A twin) starts as the
/// base does instead of looking for the file in its own, empty folder.
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
    let own_config = own
        .get("start")
        .and_then(toml::Value::as_table)
        .is_some_and(|s| s.contains_key("config"));
    if !own_config {
        inherit_config(&mut merged, base);
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

/// The base's relative `start.config`, as seen from a variant's folder beside it.
fn inherit_config(merged: &mut toml::Table, base: &str) {
    let Some(start) = merged.get_mut("start").and_then(toml::Value::as_table_mut) else {
        return;
    };
    let Some(config) = start.get("config").and_then(toml::Value::as_str) else {
        return;
    };
    if Path::new(config).is_absolute() {
        return;
    }
    let from_variant = Path::new("..").join(base).join(config);
    start.insert(
        "config".into(),
        toml::Value::String(from_variant.display().to_string()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalogue(variant: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("router");
        std::fs::create_dir(&base).unwrap();
        std::fs::write(
            base.join("target.toml"),
            "name = \"router\"\nkind = \"gateway\"\n[start]\ncommand = [\"r\", \"{config}\"]\nconfig = \"router.yaml\"\n",
        )
        .unwrap();
        let twin = dir.path().join("router-twin");
        std::fs::create_dir(&twin).unwrap();
        std::fs::write(twin.join("target.toml"), variant).unwrap();
        (dir, twin.join("target.toml"))
    }

    fn config_of(merged: &toml::Table) -> &str {
        merged["start"]["config"].as_str().unwrap()
    }

    #[test]
    fn an_inherited_config_is_the_bases_file() {
        let (_dir, twin) = catalogue("name = \"router-twin\"\nbase = \"router\"\n");
        let (merged, _) = merged_with_base(&twin).unwrap().unwrap();
        assert_eq!(config_of(&merged), "../router/router.yaml");
        assert_eq!(merged["name"].as_str(), Some("router-twin"));
    }

    #[test]
    fn a_variants_own_config_is_kept() {
        let (_dir, twin) = catalogue(
            "name = \"router-twin\"\nbase = \"router\"\n[start]\nconfig = \"mine.yaml\"\n",
        );
        let (merged, _) = merged_with_base(&twin).unwrap().unwrap();
        assert_eq!(config_of(&merged), "mine.yaml");
        // The rest of the base's start table is still there.
        assert!(merged["start"].get("command").is_some());
    }
}
