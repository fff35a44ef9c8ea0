//! Config files rendered at start (`start.render_config = true`): `${env.NAME}` in the
//! target's `start.config` replaced by the values the run gives the target (its port, the
//! coprocessor's and the trace collector's URLs), written beside the run's logs, and that
//! copy named as `{config}`. Apollo Router expands `${env.NAME}` itself; Hive Router's config
//! file has no such expansion, and its coprocessor URL and OTLP endpoint are only known once
//! the run has picked free ports. The same syntax in both keeps the gateways' files alike,
//! and the rendered copy stays with the results as the config that was measured.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

const OPEN: &str = "${env.";

/// `text` with every `${env.NAME}` replaced from `env`; a name the run does not set is an
/// error naming it and the names it does set.
pub fn expand(text: &str, env: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len()..];
        let Some(end) = after.find('}') else {
            return Err(format!("'{OPEN}' without a closing '}}'"));
        };
        let name = &after[..end];
        match env.get(name) {
            Some(v) => out.push_str(v),
            None => {
                return Err(format!(
                    "${{env.{name}}} is not set by the run; it sets: {}",
                    env.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Renders `src` to `out` (same extension, so the gateway parses it by its type) and
/// returns the rendered file's path.
pub fn render(src: &Path, out: &Path, env: &BTreeMap<String, String>) -> Result<PathBuf> {
    let text = std::fs::read_to_string(src)
        .with_context(|| format!("reading the config file {}", src.display()))?;
    let rendered = expand(&text, env).map_err(|e| anyhow::anyhow!("{}: {e}", src.display()))?;
    let out = match src.extension() {
        Some(ext) => out.with_extension(ext),
        None => out.to_path_buf(),
    };
    std::fs::write(&out, rendered)
        .with_context(|| format!("writing the rendered config {}", out.display()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> BTreeMap<String, String> {
        [
            ("PORT", "4100"),
            ("GQLBENCH_COPROCESSOR_URL", "http://127.0.0.1:4200"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    #[test]
    fn every_reference_is_replaced_and_other_text_kept() {
        let text = "url: ${env.GQLBENCH_COPROCESSOR_URL}/guid-response\nport: ${env.PORT} # {port} stays\nexpression: '{ \"a\": 1 }'\n";
        assert_eq!(
            expand(text, &env()).unwrap(),
            "url: http://127.0.0.1:4200/guid-response\nport: 4100 # {port} stays\nexpression: '{ \"a\": 1 }'\n"
        );
    }

    #[test]
    fn a_name_the_run_does_not_set_is_named() {
        let e = expand("endpoint: ${env.GQLBENCH_OTLP_URL}", &env()).unwrap_err();
        assert!(e.contains("GQLBENCH_OTLP_URL"), "{e}");
        assert!(e.contains("GQLBENCH_COPROCESSOR_URL, PORT"), "{e}");
        assert!(expand("x: ${env.PORT", &env()).is_err());
    }

    #[test]
    fn render_writes_a_copy_with_the_source_extension() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("router.yaml");
        std::fs::write(&src, "port: ${env.PORT}\n").unwrap();
        let out = render(&src, &dir.path().join("logs-hive.config"), &env()).unwrap();
        assert_eq!(out.extension().and_then(|e| e.to_str()), Some("yaml"));
        assert_eq!(std::fs::read_to_string(out).unwrap(), "port: 4100\n");
        assert!(render(&dir.path().join("missing.yaml"), &out_path(&dir), &env()).is_err());
    }

    fn out_path(dir: &tempfile::TempDir) -> PathBuf {
        dir.path().join("x")
    }
}
