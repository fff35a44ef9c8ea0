//! Where async-graphql's dynamic schema (7.2) departs from the GraphQL spec in a way a
//! gateway sees, a mock subgraph's documents are rewritten before they run (once per
//! document: the executor caches them):
//!
//! - A fragment on a union (`... on Account`, or a spread of `fragment a on Account`)
//!   applies to the union's members (the spec's DoesFragmentTypeApply); async-graphql
//!   matches only an object's own name and its interfaces, so it left out every field of
//!   such a fragment. It becomes one inline fragment per member that can be there.
//! - An object none of whose selected fields apply is `{}`; async-graphql makes it null
//!   (Hive's router runtime then failed on `null` items of a non-null list). A selection of
//!   fragments only gets a marker field (`__typename` under [`MARKER`]), which `unmark`
//!   takes out of the answer.
use std::collections::{BTreeMap, BTreeSet};

use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, Field, FragmentDefinition, InlineFragment,
    OperationType, Selection, SelectionSet, TypeCondition,
};
use async_graphql::{Name, Positioned, Value};

use super::model::{base_name, Kind, Model};

/// The response key of the marker field: reserved (`__`) so no client field can take it.
pub const MARKER: &str = "__gqlbench_marker";

/// Fragments inlined inside one another past this depth are left as they are (a cycle,
/// which validation then refuses).
const MAX_DEPTH: usize = 32;

/// What the rewrite needs of one subgraph's types.
#[derive(Debug, Default)]
pub struct Conform {
    /// Union → its members.
    unions: BTreeMap<String, Vec<String>>,
    /// Object or interface → field → the field's named type.
    fields: BTreeMap<String, BTreeMap<String, String>>,
    /// Object → the interfaces it implements.
    implements: BTreeMap<String, Vec<String>>,
    /// The object types.
    objects: BTreeSet<String>,
}

type Fragments = std::collections::HashMap<Name, Positioned<FragmentDefinition>>;

impl Conform {
    pub fn of(model: &Model) -> Conform {
        let mut c = Conform::default();
        for t in model.types.values() {
            match &t.kind {
                Kind::Union(members) => {
                    c.unions.insert(t.name.clone(), members.clone());
                }
                Kind::Object | Kind::Interface => {
                    let fields = t
                        .fields
                        .iter()
                        .map(|f| (f.name.clone(), base_name(&f.ty).to_string()))
                        .collect();
                    c.fields.insert(t.name.clone(), fields);
                    c.implements.insert(t.name.clone(), t.implements.clone());
                    if matches!(t.kind, Kind::Object) {
                        c.objects.insert(t.name.clone());
                    }
                }
                _ => {}
            }
        }
        c
    }

    /// Rewrites `doc` (above); true when a marker was added, so the answer needs `unmark`.
    pub fn rewrite(&self, doc: &mut ExecutableDocument) -> bool {
        let fragments = doc.fragments.clone();
        let mut marked = false;
        let ops: Vec<_> = match &mut doc.operations {
            DocumentOperations::Single(op) => vec![op],
            DocumentOperations::Multiple(ops) => ops.values_mut().collect(),
        };
        for op in ops {
            let root = match op.node.ty {
                OperationType::Query => "Query",
                OperationType::Mutation => "Mutation",
                OperationType::Subscription => "Subscription",
            };
            let set = &mut op.node.selection_set.node;
            self.set(set, Some(root), &fragments, &mut marked, 0);
        }
        for def in doc.fragments.values_mut() {
            let on = def.node.type_condition.node.on.node.to_string();
            let set = &mut def.node.selection_set.node;
            self.set(set, Some(&on), &fragments, &mut marked, 0);
        }
        drop_unused(doc);
        marked
    }

    fn set(
        &self,
        set: &mut SelectionSet,
        parent: Option<&str>,
        fragments: &Fragments,
        marked: &mut bool,
        depth: usize,
    ) {
        let items = std::mem::take(&mut set.items);
        for mut item in items {
            let pos = item.pos;
            match &mut item.node {
                Selection::Field(f) => {
                    self.field(&mut f.node, parent, fragments, marked, depth);
                    set.items.push(item);
                }
                Selection::InlineFragment(i) => {
                    let on = i
                        .node
                        .type_condition
                        .as_ref()
                        .map(|c| c.node.on.node.to_string());
                    match on.as_deref().filter(|u| self.unions.contains_key(*u)) {
                        Some(u) => {
                            let inner = &i.node.selection_set.node;
                            for m in self.members_in(u, parent) {
                                set.items
                                    .push(self.inline(m, inner, pos, fragments, marked, depth));
                            }
                        }
                        // On another object than the one it stands in (an inlined union
                        // fragment's `... on Admin` inside `... on User`): never applies.
                        None if self.apart(on.as_deref(), parent) => {}
                        None => {
                            let within = on.as_deref().or(parent);
                            let inner = &mut i.node.selection_set.node;
                            self.set(inner, within, fragments, marked, depth);
                            set.items.push(item);
                        }
                    }
                }
                Selection::FragmentSpread(s) => {
                    let def = fragments.get(&s.node.fragment_name.node);
                    let on = def.map(|d| d.node.type_condition.node.on.node.as_str());
                    match (def, on.filter(|u| self.unions.contains_key(*u))) {
                        (Some(def), Some(u)) if depth < MAX_DEPTH => {
                            let inner = &def.node.selection_set.node;
                            for m in self.members_in(u, parent) {
                                set.items.push(self.inline(
                                    m,
                                    inner,
                                    pos,
                                    fragments,
                                    marked,
                                    depth + 1,
                                ));
                            }
                        }
                        _ if self.apart(on, parent) => {}
                        _ => set.items.push(item),
                    }
                }
            }
        }
    }

    fn field(
        &self,
        f: &mut Field,
        parent: Option<&str>,
        fragments: &Fragments,
        marked: &mut bool,
        depth: usize,
    ) {
        let inner = &mut f.selection_set.node;
        if inner.items.is_empty() {
            return;
        }
        let ty = parent
            .and_then(|p| self.fields.get(p))
            .and_then(|fs| fs.get(f.name.node.as_str()))
            .map(String::as_str);
        self.set(inner, ty, fragments, marked, depth);
        if !inner
            .items
            .iter()
            .any(|i| matches!(i.node, Selection::Field(_)))
        {
            let pos = f.selection_set.pos;
            let marker = Field {
                alias: Some(Positioned::new(Name::new(MARKER), pos)),
                name: Positioned::new(Name::new("__typename"), pos),
                arguments: Vec::new(),
                directives: Vec::new(),
                selection_set: Positioned::new(SelectionSet::default(), pos),
            };
            inner.items.push(Positioned::new(
                Selection::Field(Positioned::new(marker, pos)),
                pos,
            ));
            *marked = true;
        }
    }

    /// `... on member { inner }`, its selections rewritten for `member`.
    fn inline(
        &self,
        member: &str,
        inner: &SelectionSet,
        pos: async_graphql::Pos,
        fragments: &Fragments,
        marked: &mut bool,
        depth: usize,
    ) -> Positioned<Selection> {
        let mut set = inner.clone();
        self.set(&mut set, Some(member), fragments, marked, depth);
        let condition = TypeCondition {
            on: Positioned::new(Name::new(member), pos),
        };
        let fragment = InlineFragment {
            type_condition: Some(Positioned::new(condition, pos)),
            directives: Vec::new(),
            selection_set: Positioned::new(set, pos),
        };
        Positioned::new(
            Selection::InlineFragment(Positioned::new(fragment, pos)),
            pos,
        )
    }

    /// Whether a fragment on `on` can never apply where `parent` stands: both objects, and
    /// not the same.
    fn apart(&self, on: Option<&str>, parent: Option<&str>) -> bool {
        match (on, parent) {
            (Some(a), Some(b)) => a != b && self.objects.contains(a) && self.objects.contains(b),
            _ => false,
        }
    }

    /// The members of union `u` an object where `parent` stands can be.
    fn members_in<'m>(&'m self, u: &'m str, parent: Option<&str>) -> Vec<&'m str> {
        let members = self.unions.get(u).into_iter().flatten().map(String::as_str);
        let Some(p) = parent.filter(|p| *p != u) else {
            return members.collect();
        };
        members
            .filter(|m| {
                *m == p
                    || self.unions.get(p).is_some_and(|o| o.iter().any(|x| x == m))
                    || self.implements.get(*m).is_some_and(|i| i.iter().any(|x| x == p))
                    // A parent not described here (`_Entity`): any member may be there.
                    || (!self.unions.contains_key(p) && !self.fields.contains_key(p))
            })
            .collect()
    }
}

/// Fragment definitions no operation spreads any more (their spreads were inlined), which
/// validation would refuse as unused.
fn drop_unused(doc: &mut ExecutableDocument) {
    fn spreads(set: &SelectionSet, out: &mut Vec<Name>) {
        for i in &set.items {
            match &i.node {
                Selection::Field(f) => spreads(&f.node.selection_set.node, out),
                Selection::InlineFragment(f) => spreads(&f.node.selection_set.node, out),
                Selection::FragmentSpread(s) => out.push(s.node.fragment_name.node.clone()),
            }
        }
    }
    let mut todo = Vec::new();
    for (_, op) in doc.operations.iter() {
        spreads(&op.node.selection_set.node, &mut todo);
    }
    let mut used = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if used.insert(name.clone()) {
            if let Some(def) = doc.fragments.get(&name) {
                spreads(&def.node.selection_set.node, &mut todo);
            }
        }
    }
    doc.fragments.retain(|name, _| used.contains(name));
}

/// The answer without the markers `rewrite` added.
pub fn unmark(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.shift_remove(MARKER);
            map.values_mut().for_each(unmark);
        }
        Value::List(items) => items.iter_mut().for_each(unmark),
        _ => {}
    }
}
