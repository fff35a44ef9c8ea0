//! `graph.toml`, the settings of a user's own graph (docs/own-graph.md): where it came
//! from, list lengths, how often a nullable value is null, the delays scenario's subgraph
//! delays, and per operation its weight and variables (one set, a list, or values generated at plan time).
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct GraphFile {
    /// Provenance, free text (what `init graph` was given).
    #[serde(default)]
    pub source: Option<String>,
    /// List lengths by `Type.field` (default 3, at most 1000).
    #[serde(default)]
    pub lists: BTreeMap<String, usize>,
    /// The delays scenario's subgraph delays, by subgraph name or "*" for every subgraph.
    #[serde(default)]
    pub delays: BTreeMap<String, String>,
    /// A CPU cost by `Type.field` ("50us"), burnt by the mock each time it resolves it.
    #[serde(default)]
    pub costs: BTreeMap<String, String>,
    /// One value in this many of a nullable field is null (default 10; 0: never).
    #[serde(default)]
    pub nulls: Option<u64>,
    /// By operation file stem.
    #[serde(default)]
    pub operations: BTreeMap<String, OperationSpec>,
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct OperationSpec {
    /// Share of the requests (default 1; 0 leaves the operation out).
    #[serde(default)]
    pub weight: Option<u32>,
    /// One set of variables, or a list that requests rotate through.
    #[serde(default)]
    pub variables: Option<Variables>,
    /// Variables whose values are generated at plan time, one case per value.
    #[serde(default)]
    pub generate: BTreeMap<String, Generator>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum Variables {
    One(Map<String, Value>),
    List(Vec<Map<String, Value>>),
}

/// `{ from = 1, to = 100 }` (an Int) or with `format = "Product-{}"` (a String).
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Generator {
    pub from: i64,
    pub to: i64,
    #[serde(default)]
    pub format: Option<String>,
}

/// Most cases one operation may have: each is an expected answer computed and held in
/// memory, and requests rotate through them.
pub const MAX_CASES: usize = 1000;

impl Generator {
    fn len(&self) -> usize {
        (self.to - self.from + 1).max(0) as usize
    }

    fn value(&self, i: usize) -> Value {
        let n = self.from + (i % self.len().max(1)) as i64;
        match &self.format {
            Some(f) => Value::String(f.replace("{}", &n.to_string())),
            None => Value::from(n),
        }
    }

    /// Why it cannot be used, if so (`var` names it).
    pub fn problem(&self, var: &str) -> Option<String> {
        if self.to < self.from {
            return Some(format!(
                "generate.{var}: `to` ({}) is below `from` ({}); write e.g. {{ from = 1, to = 100 }}",
                self.to, self.from
            ));
        }
        if self.format.as_deref().is_some_and(|f| !f.contains("{}")) {
            return Some(format!(
                "generate.{var}: `format` has no {{}} where the number goes, e.g. \"Product-{{}}\""
            ));
        }
        if self.format.is_none()
            && (self.from < i64::from(i32::MIN) || self.to > i64::from(i32::MAX))
        {
            return Some(format!(
                "generate.{var}: GraphQL's Int is 32-bit; keep from and to within ±2147483647 or give a `format` (a String)"
            ));
        }
        None
    }
}

impl OperationSpec {
    /// The variable sets of its cases: the fixed ones, each generated case over them (case
    /// i takes `from + i` of every generator, a shorter range wrapping round). Err says
    /// what is wrong, naming the field.
    pub fn cases(&self) -> Result<Vec<Map<String, Value>>, String> {
        let base: Vec<Map<String, Value>> = match &self.variables {
            None => vec![Map::new()],
            Some(Variables::One(m)) => vec![m.clone()],
            Some(Variables::List(l)) if l.is_empty() => {
                return Err(
                    "variables: the list is empty; give at least one set, e.g. [{ first = 5 }]"
                        .into(),
                )
            }
            Some(Variables::List(l)) => l.clone(),
        };
        if self.generate.is_empty() {
            return check_count(base);
        }
        for (var, g) in &self.generate {
            if let Some(p) = g.problem(var) {
                return Err(p);
            }
        }
        let n = self
            .generate
            .values()
            .map(Generator::len)
            .max()
            .unwrap_or(1);
        if n > MAX_CASES || base.len() > 1 && n * base.len() > MAX_CASES {
            return Err(format!(
                "generate: {} cases are more than the {MAX_CASES} an operation may have; narrow the range",
                n * base.len()
            ));
        }
        let mut out = Vec::new();
        for b in &base {
            for i in 0..n {
                let mut vars = b.clone();
                for (var, g) in &self.generate {
                    vars.insert(var.clone(), g.value(i));
                }
                out.push(vars);
            }
        }
        check_count(out)
    }
}

fn check_count(cases: Vec<Map<String, Value>>) -> Result<Vec<Map<String, Value>>, String> {
    if cases.len() > MAX_CASES {
        return Err(format!(
            "variables: {} sets are more than the {MAX_CASES} an operation may have",
            cases.len()
        ));
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml_text: &str) -> OperationSpec {
        toml::from_str(toml_text).unwrap()
    }

    #[test]
    fn cases_from_fixed_list_and_generated_values() {
        assert_eq!(spec("").cases().unwrap(), vec![Map::new()]);
        let one = spec("variables = { first = 5 }").cases().unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0]["first"], 5);
        let list = spec("variables = [{ first = 1 }, { first = 2 }]")
            .cases()
            .unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[1]["first"], 2);
        let gen = spec(
            "variables = { first = 2 }\n[generate]\nupc = { from = 1, to = 4, format = \"P-{}\" }\nn = { from = 10, to = 11 }",
        )
        .cases()
        .unwrap();
        assert_eq!(gen.len(), 4, "the longest range sets the count");
        assert_eq!(gen[3]["upc"], "P-4");
        assert_eq!(gen[2]["n"], 10, "a shorter range wraps round");
        assert_eq!(gen[3]["first"], 2, "fixed values are kept");
    }

    #[test]
    fn bad_generators_and_lists_are_refused_naming_the_field() {
        for (text, says) in [
            ("variables = []", "the list is empty"),
            ("[generate]\nid = { from = 5, to = 1 }", "generate.id: `to`"),
            (
                "[generate]\nid = { from = 1, to = 5, format = \"x\" }",
                "no {}",
            ),
            (
                "[generate]\nid = { from = 1, to = 5000 }",
                "more than the 1000",
            ),
            ("[generate]\nid = { from = 1, to = 3000000000 }", "32-bit"),
        ] {
            let e = spec(text).cases().unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
