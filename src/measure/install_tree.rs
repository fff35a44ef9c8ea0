//! Whether an npm install's `node_modules` still holds what its lockfile put there: a
//! stamp that matches today's inputs vouches for the install as it was made, not for a
//! package folder removed since. Only the top level of the tree is looked at (one `stat`
//! per package), for the packages npm always installs (not optional ones, whose platform
//! may have skipped them).
use std::path::Path;

/// The first top-level package of `dir`'s `package-lock.json` (lockfile v2/v3
/// `packages`) whose folder is not in `node_modules`; None when all are there, or when
/// there is no lockfile to read (the install's own check file is then all there is).
pub fn missing_package(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("package-lock.json")).ok()?;
    let lock: serde_json::Value = serde_json::from_str(&text).ok()?;
    let packages = lock.get("packages")?.as_object()?;
    packages
        .iter()
        .filter(|(path, _)| {
            path.starts_with("node_modules/")
                && !path["node_modules/".len()..].contains("node_modules/")
        })
        .filter(|(_, p)| {
            let flag = |k: &str| p.get(k).and_then(|v| v.as_bool()).unwrap_or(false);
            !flag("optional") && !flag("dev") && !flag("devOptional") && !flag("extraneous")
        })
        .find(|(path, _)| !dir.join(path).exists())
        .map(|(path, _)| path["node_modules/".len()..].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_removed_from_node_modules_is_named() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("package-lock.json"),
            serde_json::json!({"lockfileVersion": 3, "packages": {
                "": {"name": "t"},
                "node_modules/graphql": {"version": "16.0.0"},
                "node_modules/@scope/pkg": {"version": "1.0.0"},
                "node_modules/graphql/node_modules/nested": {"version": "1.0.0"},
                "node_modules/fsevents": {"version": "2.0.0", "optional": true},
                "node_modules/jest": {"version": "29.0.0", "dev": true}
            }})
            .to_string(),
        )
        .unwrap();
        for p in ["node_modules/graphql", "node_modules/@scope/pkg"] {
            std::fs::create_dir_all(d.path().join(p)).unwrap();
        }
        assert_eq!(
            missing_package(d.path()),
            None,
            "nested, optional and dev are not asked for"
        );
        std::fs::remove_dir_all(d.path().join("node_modules/@scope/pkg")).unwrap();
        assert_eq!(missing_package(d.path()).as_deref(), Some("@scope/pkg"));
    }
}
