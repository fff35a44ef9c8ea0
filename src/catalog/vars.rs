//! Placeholders in manifests: `{port}`, `{supergraph}`, `{cache}`, `{target_dir}`, `{config}`
//! (the target's `start.config` file),
//! `{gqlbench}` (this program, for targets it serves itself, e.g. test publishers) in start
//! and install commands and environment values, replaced when the target is started or
//! installed. Only `{lowercase_name}` is a placeholder, so JSON or shell text with other
//! braces passes through untouched.
use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::error::CatalogError;

pub const KNOWN: [&str; 6] = [
    "port",
    "supergraph",
    "cache",
    "target_dir",
    "gqlbench",
    "config",
];

/// `{name}` occurrences in `s` (name: lowercase letters and underscores).
fn placeholders(s: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'{' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_lowercase() || b[j] == b'_') {
                j += 1;
            }
            if j > i + 1 && j < b.len() && b[j] == b'}' {
                out.push((i, j + 1, &s[i + 1..j]));
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Refuse unknown placeholders at load time, naming the valid ones.
pub fn check(s: &str) -> Result<(), String> {
    for (_, _, name) in placeholders(s) {
        if !KNOWN.contains(&name) {
            return Err(format!(
                "unknown placeholder {{{name}}} in '{s}'; known: {}",
                KNOWN.map(|k| format!("{{{k}}}")).join(", ")
            ));
        }
    }
    Ok(())
}

/// Replace placeholders with `vars`; one without a value is an error naming it.
pub fn expand(s: &str, vars: &BTreeMap<&str, String>) -> Result<String, CatalogError> {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (a, b, name) in placeholders(s) {
        out.push_str(&s[last..a]);
        match vars.get(name) {
            Some(v) => out.push_str(v),
            None => {
                return Err(CatalogError::NoValue {
                    name: name.to_string(),
                    text: s.to_string(),
                })
            }
        }
        last = b;
    }
    out.push_str(&s[last..]);
    Ok(out)
}

/// Where native builds are cached: $GQLBENCH_CACHE, else ~/.cache/gqlbench.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("GQLBENCH_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join(".cache")
        .join("gqlbench")
}

/// `<folder>` of a `check` written `{cache}/<folder>/...`; None for other checks.
pub fn cache_folder(check: &str) -> Option<&str> {
    let rest = check.strip_prefix("{cache}/")?;
    let (folder, file) = rest.split_once('/')?;
    (!folder.is_empty() && !file.is_empty() && !folder.contains('{')).then_some(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_known_and_leaves_other_braces() {
        let mut v = BTreeMap::new();
        v.insert("port", "4100".to_string());
        v.insert("cache", "/c".to_string());
        assert_eq!(
            expand("{cache}/bin/router --listen 127.0.0.1:{port}", &v).unwrap(),
            "/c/bin/router --listen 127.0.0.1:4100"
        );
        assert_eq!(
            expand(r#"{"a": {x}}"#, &v).unwrap_err().to_string(),
            "placeholder {x} in '{\"a\": {x}}' has no value here"
        );
        assert_eq!(
            expand(r#"{"a":1} {Port}"#, &v).unwrap(),
            r#"{"a":1} {Port}"#
        );
        assert!(check("{supergraph}").is_ok());
        assert!(check("{suppergraph}")
            .unwrap_err()
            .contains("known: {port}"));
    }
}
