//! One suite of the federation gateway audit as gqlbench reads it: a folder with one
//! `NAME.subgraph.ts` per subgraph, whose `typeDefs` template literal is the subgraph's SDL,
//! and a `test.ts` whose `createTest(...)` calls each start with the operation as a template
//! literal (the audit's layout: graphql-hive/federation-gateway-audit, `src/test-suites/`).
//! Only the GraphQL text is read; the audit's resolvers and expected answers are not (the
//! mocks serve their own data, and the answers are computed from it).
use std::path::{Path, PathBuf};

/// A suite's subgraphs and operations, read from its folder.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    pub name: String,
    /// (subgraph name, SDL), by name.
    pub subgraphs: Vec<(String, String)>,
    /// (t1, t2, ... in the file's order, the operation).
    pub operations: Vec<(String, String)>,
    /// Operations not taken, with why (not a GraphQL document: the audit expects an error).
    pub dropped: Vec<(String, String)>,
    /// Operations whose expectation in test.ts says `errors: true`: the audit's own data or
    /// plan makes every correct gateway answer with an error.
    pub expects_errors: Vec<String>,
}

/// The suite folders under `path`: the folder itself when it is one, else its
/// subfolders that are (a folder of suites), else those of `src/test-suites` (a checkout of
/// the audit repository). Sorted by name.
pub fn find(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        return Err("is not a folder; give a checkout of graphql-hive/federation-gateway-audit, its src/test-suites, or one suite's folder".into());
    }
    if is_suite(path) {
        return Ok(vec![path.to_path_buf()]);
    }
    for base in [path.to_path_buf(), path.join("src").join("test-suites")] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(&base)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| is_suite(p))
            .collect();
        if !found.is_empty() {
            found.sort();
            return Ok(found);
        }
    }
    Err("holds no audit suite (a folder with NAME.subgraph.ts files and a test.ts); give a checkout of graphql-hive/federation-gateway-audit, its src/test-suites, or one suite's folder".into())
}

fn is_suite(dir: &Path) -> bool {
    dir.join("test.ts").is_file() && !subgraph_files(dir).is_empty()
}

fn subgraph_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".subgraph.ts"))
        })
        .collect();
    files.sort();
    files
}

/// The suite in `dir`; an error names the file and what it lacks.
pub fn read(dir: &Path) -> Result<Suite, String> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "suite".into());
    let mut subgraphs = Vec::new();
    for f in subgraph_files(dir) {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let sub = f
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".subgraph.ts"))
            .unwrap_or("subgraph")
            .to_string();
        let sdl = after(&text, "typeDefs")
            .and_then(template)
            .ok_or_else(|| format!("{}: no `typeDefs` template literal", f.display()))??;
        subgraphs.push((sub, sdl));
    }
    let test = dir.join("test.ts");
    let text = std::fs::read_to_string(&test).map_err(|e| format!("{}: {e}", test.display()))?;
    let (mut operations, mut dropped, mut expects_errors) = (Vec::new(), Vec::new(), Vec::new());
    for (i, call) in text.split("createTest(").skip(1).enumerate() {
        let name = format!("t{}", i + 1);
        if call.contains("errors: true") {
            expects_errors.push(name.clone());
        }
        match template(call) {
            Some(Ok(op)) => match async_graphql_parser::parse_query(&op) {
                Ok(_) => operations.push((name, op)),
                Err(e) => {
                    let e = e
                        .to_string()
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ");
                    dropped.push((name, format!("not a GraphQL document ({e})")))
                }
            },
            Some(Err(why)) => dropped.push((name, why)),
            None => dropped.push((name, "no operation as a template literal".into())),
        }
    }
    if operations.is_empty() && dropped.is_empty() {
        return Err(format!("{}: no createTest(...) call", test.display()));
    }
    Ok(Suite {
        name,
        subgraphs,
        operations,
        dropped,
        expects_errors,
    })
}

fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker).map(|i| &text[i + marker.len()..])
}

/// The first template literal of `text` (before any other call or value): its content with
/// `\``-style escapes undone. One that splices a value (`${...}`) is refused: the SDL or
/// operation would depend on TypeScript gqlbench does not run.
fn template(text: &str) -> Option<Result<String, String>> {
    let start = text.find('`')?;
    // The literal must be the next value: nothing but a comment before it.
    let before = text[..start].replace("/* GraphQL */", "");
    if !before
        .trim_matches(|c: char| c.is_whitespace() || c == ':' || c == '(')
        .is_empty()
    {
        return None;
    }
    let mut out = String::new();
    let mut chars = text[start + 1..].chars();
    while let Some(c) = chars.next() {
        match c {
            '`' => return Some(Ok(out)),
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '$' if chars.clone().next() == Some('{') => {
                return Some(Err(
                    "its template literal splices a TypeScript value (${...})".into(),
                ))
            }
            c => out.push(c),
        }
    }
    Some(Err("its template literal is not closed".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_literals_are_read_and_spliced_ones_refused() {
        assert_eq!(
            template(": /* GraphQL */ `type Query { a: Int }`, x"),
            Some(Ok("type Query { a: Int }".into()))
        );
        assert_eq!(template("(\n  `{ a }`"), Some(Ok("{ a }".into())));
        assert_eq!(template(" `a \\` b`"), Some(Ok("a ` b".into())));
        assert!(matches!(template(" `a ${b}`"), Some(Err(_))));
        assert!(matches!(template(" `open"), Some(Err(_))));
        // A value that is no template literal: none.
        assert_eq!(template(" parse(x), `later`"), None);
    }

    #[test]
    fn a_suite_folder_is_read_and_a_folder_of_suites_found() {
        let tmp = tempfile::tempdir().unwrap();
        let s = tmp.path().join("src/test-suites/one");
        std::fs::create_dir_all(&s).unwrap();
        std::fs::write(
            s.join("a.subgraph.ts"),
            "export default createSubgraph(\"a\", { typeDefs: /* GraphQL */ `type Query { a: Int }`, resolvers: {} });",
        )
        .unwrap();
        std::fs::write(
            s.join("test.ts"),
            "export default [createTest(/* GraphQL */ `{ a }`, { data: {} }), createTest(`{ a `, { errors: true })];",
        )
        .unwrap();
        assert_eq!(find(tmp.path()).unwrap(), vec![s.clone()]);
        assert_eq!(find(&s).unwrap(), vec![s.clone()]);
        let suite = read(&s).unwrap();
        assert_eq!(suite.name, "one");
        assert_eq!(
            suite.subgraphs,
            vec![("a".into(), "type Query { a: Int }".into())]
        );
        assert_eq!(suite.operations, vec![("t1".into(), "{ a }".into())]);
        assert_eq!(suite.dropped.len(), 1);
        assert_eq!(suite.expects_errors, vec!["t2".to_string()]);
        assert!(suite.dropped[0].1.contains("not a GraphQL document"));
        let empty = tempfile::tempdir().unwrap();
        assert!(find(empty.path()).unwrap_err().contains("no audit suite"));
    }
}
