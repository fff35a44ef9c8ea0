//! The house's floors (docs/architecture.md), checked on the code itself: every top-level
//! module of src/ sits on a floor and uses (`crate::X`) only modules on its floor or below;
//! among the top-level modules of src/, crates/engine/src and crates/subgraphs/src there is
//! no circle; and no source file outside tests is over 450 lines. The floor table is read
//! from architecture.md, so the document and the check cannot disagree: a module missing
//! from the table fails too.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 450;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The text of a file with comments, string and char literals blanked and `#[cfg(test)]`
/// items removed: what is left is the code that builds outside tests.
fn code_of(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && is_raw_string(&b, i) {
            let mut j = i + 1;
            let mut hashes = 0;
            while b[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                if b[j] == '\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                if b.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' && is_char_literal(&b, i) {
            i += 1;
            while i < b.len() && b[i] != '\'' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            out.push_str("' '");
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    without_test_items(&out)
}

fn is_raw_string(b: &[char], i: usize) -> bool {
    // `r"` or `r#..."`, not an identifier ending in r.
    let prev_ident = i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_');
    let mut j = i + 1;
    while b.get(j) == Some(&'#') {
        j += 1;
    }
    !prev_ident && b.get(j) == Some(&'"')
}

fn is_char_literal(b: &[char], i: usize) -> bool {
    // 'x' or '\n' (a lifetime 'a has no closing quote right after).
    match b.get(i + 1) {
        Some('\\') => true,
        Some(_) => b.get(i + 2) == Some(&'\''),
        None => false,
    }
}

/// Removes every `#[cfg(test)]` item: a `mod x;` declaration or a braced block.
fn without_test_items(code: &str) -> String {
    let mut out = code.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let rest = &out[at..];
        let semi = rest.find(';');
        let brace = rest.find('{');
        let end = match (semi, brace) {
            (Some(s), Some(b)) if s < b => at + s + 1,
            (_, Some(b)) => {
                let mut depth = 0;
                let mut end = out.len();
                for (k, ch) in out[at + b..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = at + b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (Some(s), None) => at + s + 1,
            (None, None) => out.len(),
        };
        // Keep the line count, so line numbers in messages stay right.
        let lines = out[at..end].matches('\n').count();
        out.replace_range(at..end, &"\n".repeat(lines));
    }
    out
}

/// The top-level modules a piece of code names through `crate::`, with their lines.
fn uses(code: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(k) = code[from..].find("crate::") {
        let at = from + k;
        from = at + 7;
        // `gqlbench_engine::crate::` cannot happen; `$crate::` is a macro's own crate.
        if at > 0
            && (bytes[at - 1].is_ascii_alphanumeric()
                || bytes[at - 1] == b'_'
                || bytes[at - 1] == b'$')
        {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let rest = &code[from..];
        if rest.starts_with('{') {
            for name in group_heads(rest) {
                found.push((name, line));
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push((name, line));
            }
        }
    }
    found
}

/// The first segment of every path in a `{a::b, c, d::{e, f}}` group.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut item = String::new();
    for c in group.chars() {
        match c {
            '{' => {
                depth += 1;
                if depth > 1 {
                    item.push(c);
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    heads.push(std::mem::take(&mut item));
                    break;
                }
                item.push(c);
            }
            ',' if depth == 1 => heads.push(std::mem::take(&mut item)),
            _ => item.push(c),
        }
    }
    heads
        .iter()
        .map(|h| {
            h.trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|h| !h.is_empty() && h != "self")
        .collect()
}

fn is_test_file(rel: &Path) -> bool {
    rel.file_name().is_some_and(|f| f == "tests.rs")
        || rel.components().any(|c| c.as_os_str() == "tests")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// An arrow between top-level modules, with the first place that draws it.
#[derive(Debug, Clone)]
struct Arrow {
    from: String,
    to: String,
    at: String,
}

/// The top-level modules of a crate's src/ and the arrows between them (tests aside).
fn graph(src: &Path) -> (BTreeSet<String>, Vec<Arrow>) {
    let mut modules = BTreeSet::new();
    for e in std::fs::read_dir(src).expect("the crate's src/").flatten() {
        let p = e.path();
        let name = p
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if p.is_dir()
            || (p.extension().is_some_and(|x| x == "rs") && name != "lib" && name != "main")
        {
            modules.insert(name);
        }
    }
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut seen = BTreeSet::new();
    let mut arrows = Vec::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap_or(&f).to_path_buf();
        let Some(top) = rel.components().next() else {
            continue;
        };
        let top = Path::new(top.as_os_str())
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if !modules.contains(&top) || is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("a source file");
        for (to, line) in uses(&code_of(&text)) {
            if to != top && modules.contains(&to) && seen.insert((top.clone(), to.clone())) {
                arrows.push(Arrow {
                    from: top.clone(),
                    to,
                    at: format!("{}:{line}", f.strip_prefix(root()).unwrap_or(&f).display()),
                });
            }
        }
    }
    (modules, arrows)
}

/// The circles of a graph: its strongly connected parts of more than one module.
fn circles(modules: &BTreeSet<String>, arrows: &[Arrow]) -> Vec<Vec<String>> {
    let mut out: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for a in arrows {
        out.entry(a.from.as_str())
            .or_default()
            .insert(a.to.as_str());
    }
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(m) = todo.pop() {
            for n in out.get(m).into_iter().flatten() {
                if seen.insert(*n) {
                    todo.push(n);
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&str, BTreeSet<&str>> =
        modules.iter().map(|m| (m.as_str(), reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for m in modules {
        if done.contains(m.as_str()) {
            continue;
        }
        let part: Vec<String> = modules
            .iter()
            .filter(|n| {
                reached[m.as_str()].contains(n.as_str()) && reached[n.as_str()].contains(m.as_str())
            })
            .cloned()
            .collect();
        done.extend(part.iter().map(|s| s.to_string()));
        if part.len() > 1 {
            found.push(part);
        }
    }
    found
}

/// The floor of every module, from the table between `<!-- floors -->` and
/// `<!-- /floors -->` in architecture.md: one row per floor, the highest first, its
/// modules in backticks in the second column.
fn floors(doc: &str) -> Result<BTreeMap<String, usize>, String> {
    let start = doc
        .find("<!-- floors -->")
        .ok_or("no <!-- floors --> marker")?;
    let end = doc
        .find("<!-- /floors -->")
        .ok_or("no <!-- /floors --> marker")?;
    let rows: Vec<&str> = doc[start..end]
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|--") && !l.starts_with("| floor"))
        .collect();
    let mut map = BTreeMap::new();
    for (i, row) in rows.iter().enumerate() {
        let floor = rows.len() - i;
        let cell = row
            .split('|')
            .nth(2)
            .ok_or(format!("row without modules: {row}"))?;
        for m in cell.split('`').skip(1).step_by(2) {
            if map.insert(m.to_string(), floor).is_some() {
                return Err(format!("`{m}` is on two floors"));
            }
        }
    }
    Ok(map)
}

/// Every arrow that climbs: a module using one on a higher floor.
fn climbs(arrows: &[Arrow], floor: &BTreeMap<String, usize>) -> Vec<String> {
    arrows
        .iter()
        .filter(|a| floor.get(&a.to) > floor.get(&a.from))
        .map(|a| {
            format!(
                "{}: `{}` (floor {}) uses `{}` (floor {}), a higher floor",
                a.at, a.from, floor[&a.from], a.to, floor[&a.to]
            )
        })
        .collect()
}

#[test]
fn every_module_of_src_uses_only_its_floor_and_those_below() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let floor = floors(&doc).unwrap();
    let (modules, arrows) = graph(&root().join("src"));
    let missing: Vec<&String> = modules.iter().filter(|m| !floor.contains_key(*m)).collect();
    assert!(
        missing.is_empty(),
        "modules of src/ on no floor of docs/architecture.md's table: {missing:?}"
    );
    let gone: Vec<&String> = floor.keys().filter(|m| !modules.contains(*m)).collect();
    assert!(
        gone.is_empty(),
        "architecture.md names modules src/ does not have: {gone:?}"
    );
    let bad = climbs(&arrows, &floor);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        arrows.len() > 50,
        "the graph was not read: {} arrows",
        arrows.len()
    );
}

#[test]
fn no_circle_among_the_top_level_modules_of_src_engine_and_subgraphs() {
    for src in ["src", "crates/engine/src", "crates/subgraphs/src"] {
        let (modules, arrows) = graph(&root().join(src));
        assert!(!arrows.is_empty(), "{src}: no arrows read");
        let found = circles(&modules, &arrows);
        let say: Vec<String> = found
            .iter()
            .map(|c| {
                let inside: Vec<String> = arrows
                    .iter()
                    .filter(|a| c.contains(&a.from) && c.contains(&a.to))
                    .map(|a| format!("{} -> {} ({})", a.from, a.to, a.at))
                    .collect();
                format!("{src}: circle {c:?}:\n  {}", inside.join("\n  "))
            })
            .collect();
        assert!(found.is_empty(), "{}", say.join("\n"));
    }
}

#[test]
fn no_source_file_outside_tests_is_over_450_lines() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    for c in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        rust_files(&c.path().join("src"), &mut files);
    }
    let over: Vec<String> = files
        .iter()
        .filter(|f| !is_test_file(f.strip_prefix(root()).unwrap()))
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_LINES)
                .then(|| format!("{} ({n} lines)", f.strip_prefix(root()).unwrap().display()))
        })
        .collect();
    assert!(files.len() > 100, "files were not read");
    assert!(over.is_empty(), "over {MAX_LINES} lines: {over:?}");
}

// The checker itself, on code made to break it.

#[test]
fn uses_reads_paths_and_groups_but_not_comments_strings_or_tests() {
    let code = code_of(
        "use crate::{a::b, c, d::{e, f}, self};\n\
         // crate::commented\n\
         /* crate::blocked */ let s = \"crate::quoted\"; let r = r#\"crate::raw\"#;\n\
         fn f<'a>(x: &'a str) -> char { crate::g::h(x); 'c' }\n\
         #[cfg(test)]\nmod tests { use crate::t; }\n\
         #[cfg(test)]\nmod more;\n\
         gqlbench_engine::crate_like(); $crate::m!();\n",
    );
    let names: Vec<(String, usize)> = uses(&code);
    assert_eq!(
        names,
        vec![
            ("a".into(), 1),
            ("c".into(), 1),
            ("d".into(), 1),
            ("g".into(), 4)
        ]
    );
}

#[test]
fn a_climbing_use_and_a_circle_are_named_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("high")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod low; pub mod high;").unwrap();
    std::fs::write(src.join("high/mod.rs"), "use crate::low::X;\n").unwrap();
    std::fs::write(src.join("high/tests.rs"), "use crate::nothing;\n").unwrap();
    std::fs::write(
        src.join("low.rs"),
        "pub struct X;\n\nfn f() { crate::high::g() }\n",
    )
    .unwrap();
    let (modules, arrows) = graph(src);
    assert_eq!(
        modules,
        BTreeSet::from(["high".to_string(), "low".to_string()])
    );
    let floor = floors(
        "<!-- floors -->\n| floor | modules | what |\n|--|--|--|\n| 2 | `high` | up |\n| 1 | `low` | down |\n<!-- /floors -->",
    )
    .unwrap();
    let bad = climbs(&arrows, &floor);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].contains("low.rs:3: `low` (floor 1) uses `high` (floor 2)"),
        "{bad:?}"
    );
    assert_eq!(
        circles(&modules, &arrows),
        vec![vec!["high".to_string(), "low".to_string()]]
    );
}

#[test]
fn a_module_on_two_floors_is_refused() {
    let e =
        floors("<!-- floors -->\n| 2 | `a` | x |\n| 1 | `a` | y |\n<!-- /floors -->").unwrap_err();
    assert!(e.contains("`a` is on two floors"), "{e}");
}
