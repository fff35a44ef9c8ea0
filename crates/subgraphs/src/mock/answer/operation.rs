//! The client's side of an expected answer: which operation of the document runs, its
//! variables' values, each field's arguments as a subgraph receives them, and GraphQL's
//! CollectFields (fragments, type conditions, `@skip`/`@include`, merged response keys).

use std::collections::{HashMap, HashSet};

use async_graphql::parser::types::{
    Directive, ExecutableDocument, Field, OperationDefinition, OperationType, Selection,
    SelectionSet,
};
use async_graphql::{Name, Positioned, Value as Const};
use serde_json::{Map, Value as Json};

use crate::mock::model::ArgDef;

/// One operation of a document, with its variables resolved.
pub(super) struct Op<'a> {
    doc: &'a ExecutableDocument,
    pub op: &'a OperationDefinition,
    vars: HashMap<Name, Const>,
}

/// The fields of one response key, in document order: their sub-selections are merged.
pub(super) type Group<'a> = (String, Vec<&'a Positioned<Field>>);

impl<'a> Op<'a> {
    /// The operation `name` names, or the only one; its variables: the given value, else
    /// the operation's default, else null for a nullable one (async-graphql's rule, so a
    /// subgraph receiving `$v` unset sees the same null).
    pub fn new(
        doc: &'a ExecutableDocument,
        name: Option<&str>,
        given: &Map<String, Json>,
    ) -> Result<Op<'a>, String> {
        let mut ops: Vec<(Option<&Name>, &OperationDefinition)> =
            doc.operations.iter().map(|(n, o)| (n, &o.node)).collect();
        let op = match name {
            Some(name) => ops
                .iter()
                .find(|(n, _)| n.is_some_and(|n| n.as_str() == name))
                .map(|(_, o)| *o)
                .ok_or_else(|| format!("the document has no operation named `{name}`"))?,
            None if ops.len() == 1 => ops[0].1,
            None => {
                ops.sort_by_key(|(n, _)| n.map(Name::as_str));
                let names: Vec<_> = ops
                    .iter()
                    .filter_map(|(n, _)| n.map(Name::as_str))
                    .collect();
                return Err(format!(
                    "the document has {} operations ({}): name the one to run",
                    ops.len(),
                    names.join(", ")
                ));
            }
        };
        let mut vars = HashMap::new();
        for def in &op.variable_definitions {
            let def = &def.node;
            let name = &def.name.node;
            let value = match given.get(name.as_str()) {
                Some(v) => Const::from_json(v.clone())
                    .map_err(|e| format!("variable ${name} is not a GraphQL value: {e}"))?,
                None => def.default_value().cloned().ok_or_else(|| {
                    format!(
                        "variable ${name} of type {} is required and not given",
                        def.var_type.node
                    )
                })?,
            };
            vars.insert(name.clone(), value);
        }
        Ok(Op { doc, op, vars })
    }

    /// The root type the operation starts from: the mock's roots are these names.
    pub fn root(&self) -> Result<&'static str, String> {
        match self.op.ty {
            OperationType::Query => Ok("Query"),
            OperationType::Mutation => Ok("Mutation"),
            OperationType::Subscription => {
                Err("subscriptions are not served by the mock subgraphs".into())
            }
        }
    }

    /// Looks a variable up, for `into_const_with` (async-graphql does not export the type
    /// of a value that may hold variables, so it is never named here).
    fn var(&self) -> impl FnMut(Name) -> Result<Const, String> + '_ {
        |var| {
            self.vars
                .get(&var)
                .cloned()
                .ok_or_else(|| format!("variable ${var} is not defined by the operation"))
        }
    }

    /// The arguments a subgraph's resolver receives for `field` (none for a key field the
    /// gateway selects), as async-graphql builds them: those written, variables replaced
    /// by their values, no coercion; then the subgraph SDL's default of each one not
    /// written (`defs`).
    pub fn arguments(
        &self,
        field: Option<&Field>,
        defs: &[ArgDef],
    ) -> Result<Map<String, Json>, String> {
        let mut args = Map::new();
        for (name, v) in field.map(|f| f.arguments.as_slice()).unwrap_or_default() {
            let name = name.node.as_str();
            if !defs.iter().any(|d| d.name == name) {
                return Err(format!("unknown argument `{name}`"));
            }
            let c = v.node.clone().into_const_with(self.var())?;
            args.insert(name.to_string(), c.into_json().map_err(|e| e.to_string())?);
        }
        for d in defs {
            if let (Some(default), false) = (&d.default, args.contains_key(&d.name)) {
                let v = default.clone().into_json().map_err(|e| e.to_string())?;
                args.insert(d.name.clone(), v);
            }
        }
        Ok(args)
    }

    /// `@skip(if: true)` or `@include(if: false)` among `directives`. `@defer` and
    /// `@stream` change when parts arrive, not the merged answer: they are ignored.
    fn skipped(&self, directives: &[Positioned<Directive>]) -> Result<bool, String> {
        for d in directives {
            let name = d.node.name.node.as_str();
            if name != "skip" && name != "include" {
                continue;
            }
            let cond = d
                .node
                .get_argument("if")
                .ok_or_else(|| format!("@{name} without `if`"))?;
            let Const::Boolean(b) = cond.node.clone().into_const_with(self.var())? else {
                return Err(format!("@{name}(if:) is not a Boolean"));
            };
            if b == (name == "skip") {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// GraphQL's CollectFields for an object of type `concrete`: the fields of `sets` by
    /// response key, in first-occurrence order, fragments applying when `applies(condition)`.
    pub fn collect(
        &self,
        sets: &[&'a SelectionSet],
        applies: &dyn Fn(&str) -> Result<bool, String>,
    ) -> Result<Vec<Group<'a>>, String> {
        let mut out: Vec<Group<'a>> = Vec::new();
        let mut visited = HashSet::new();
        for set in sets {
            self.collect_into(set, applies, &mut out, &mut visited)?;
        }
        Ok(out)
    }

    fn collect_into(
        &self,
        set: &'a SelectionSet,
        applies: &dyn Fn(&str) -> Result<bool, String>,
        out: &mut Vec<Group<'a>>,
        visited: &mut HashSet<&'a str>,
    ) -> Result<(), String> {
        for item in &set.items {
            match &item.node {
                Selection::Field(f) => {
                    if self.skipped(&f.node.directives)? {
                        continue;
                    }
                    let key = f.node.response_key().node.as_str();
                    match out.iter_mut().find(|(k, _)| k == key) {
                        Some((_, fields)) => fields.push(f),
                        None => out.push((key.to_string(), vec![f])),
                    }
                }
                Selection::InlineFragment(frag) => {
                    let frag = &frag.node;
                    if self.skipped(&frag.directives)? {
                        continue;
                    }
                    if let Some(cond) = &frag.type_condition {
                        if !applies(cond.node.on.node.as_str())? {
                            continue;
                        }
                    }
                    self.collect_into(&frag.selection_set.node, applies, out, visited)?;
                }
                Selection::FragmentSpread(spread) => {
                    let name = spread.node.fragment_name.node.as_str();
                    if self.skipped(&spread.node.directives)? || !visited.insert(name) {
                        continue;
                    }
                    let def = self
                        .doc
                        .fragments
                        .get(name)
                        .ok_or_else(|| format!("unknown fragment `{name}`"))?;
                    if applies(def.node.type_condition.node.on.node.as_str())? {
                        self.collect_into(&def.node.selection_set.node, applies, out, visited)?;
                    }
                }
            }
        }
        Ok(())
    }
}
