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
//! - An implementation may narrow an interface field's type (`Book.similar: [Book]` for
//!   `Similar.similar: [Similar]`, covariance); async-graphql's schema builder wants them
//!   equal, so the served schema leaves such a field out of the interface
//!   ([`covariant_fields`]), and a selection of it on the interface becomes one inline
//!   fragment per implementation selecting it there.
use std::collections::{BTreeMap, BTreeSet};

use async_graphql::parser::types::{
    BaseType, Directive, DocumentOperations, ExecutableDocument, Field, FragmentDefinition,
    InlineFragment, OperationType, Selection, SelectionSet, Type, TypeCondition,
};
use async_graphql::{Name, Positioned, Value};

use super::model::{base_name, Kind, Model};

/// The response key of the marker field: `__`-prefixed, as no client's alias is in
/// practice (a client taking it would lose that key from its answer).
pub const MARKER: &str = "__gqlbench_marker";

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
    /// Interface → its fields an implementation narrows (left out of the served interface).
    covariant: BTreeMap<String, BTreeSet<String>>,
}

type Fragments = std::collections::HashMap<Name, Positioned<FragmentDefinition>>;

/// One document's rewrite: its fragments as written, those being inlined (a fragment
/// spread inside itself is left for validation to refuse, not expanded again), and whether
/// a marker was added.
struct Pass<'f> {
    fragments: &'f Fragments,
    inlining: Vec<Name>,
    marked: bool,
}

/// A fragment on a union being replaced: its selections, its directives, where it stood.
struct Inlined<'a> {
    set: &'a SelectionSet,
    directives: &'a [Positioned<Directive>],
    pos: async_graphql::Pos,
}

impl Conform {
    pub fn of(model: &Model) -> Conform {
        let mut c = Conform {
            covariant: covariant_fields(model),
            ..Conform::default()
        };
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

    /// The interface fields an implementation narrows, by interface: what the served
    /// schema leaves out of each interface (`schema::build`).
    pub fn narrowed(&self) -> &BTreeMap<String, BTreeSet<String>> {
        &self.covariant
    }

    /// Rewrites `doc` (above); true when a marker was added, so the answer needs `unmark`.
    pub fn rewrite(&self, doc: &mut ExecutableDocument) -> bool {
        let fragments = doc.fragments.clone();
        let mut pass = Pass {
            fragments: &fragments,
            inlining: Vec::new(),
            marked: false,
        };
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
            self.set(&mut op.node.selection_set.node, Some(root), &mut pass);
        }
        for def in doc.fragments.values_mut() {
            let on = def.node.type_condition.node.on.node.to_string();
            self.set(&mut def.node.selection_set.node, Some(&on), &mut pass);
        }
        drop_unused(doc);
        pass.marked
    }

    fn set(&self, set: &mut SelectionSet, parent: Option<&str>, pass: &mut Pass) {
        let items = std::mem::take(&mut set.items);
        for mut item in items {
            let pos = item.pos;
            if let (Selection::Field(f), Some(p)) = (&item.node, parent) {
                let narrowed = self.covariant.get(p);
                if narrowed.is_some_and(|n| n.contains(f.node.name.node.as_str())) {
                    let single = SelectionSet {
                        items: vec![item.clone()],
                    };
                    let what = Inlined {
                        set: &single,
                        directives: &[],
                        pos,
                    };
                    for m in self.possible(p).into_iter().flatten() {
                        set.items.push(self.inline(m, &what, pass));
                    }
                    continue;
                }
            }
            match &mut item.node {
                Selection::Field(f) => {
                    self.field(&mut f.node, parent, pass);
                    set.items.push(item);
                }
                Selection::InlineFragment(i) => {
                    let i = &mut i.node;
                    let on = i
                        .type_condition
                        .as_ref()
                        .map(|c| c.node.on.node.to_string());
                    match on.as_deref().filter(|u| self.unions.contains_key(*u)) {
                        Some(u) => {
                            let what = Inlined {
                                set: &i.selection_set.node,
                                directives: &i.directives,
                                pos,
                            };
                            for m in self.members_in(u, parent) {
                                set.items.push(self.inline(m, &what, pass));
                            }
                        }
                        // On another object than the one it stands in (an inlined union
                        // fragment's `... on Admin` inside `... on User`): never applies.
                        None if self.apart(on.as_deref(), parent) => {}
                        None => {
                            let within = on.as_deref().or(parent);
                            self.set(&mut i.selection_set.node, within, pass);
                            set.items.push(item);
                        }
                    }
                }
                Selection::FragmentSpread(s) => {
                    let name = &s.node.fragment_name.node;
                    let fragments = pass.fragments;
                    let def = fragments.get(name);
                    let on = def.map(|d| d.node.type_condition.node.on.node.as_str());
                    let again = pass.inlining.contains(name);
                    match (def, on.filter(|u| self.unions.contains_key(*u))) {
                        (Some(def), Some(u)) if !again => {
                            let what = Inlined {
                                set: &def.node.selection_set.node,
                                directives: &s.node.directives,
                                pos,
                            };
                            pass.inlining.push(name.clone());
                            for m in self.members_in(u, parent) {
                                set.items.push(self.inline(m, &what, pass));
                            }
                            pass.inlining.pop();
                        }
                        _ if self.apart(on, parent) => {}
                        _ => set.items.push(item),
                    }
                }
            }
        }
    }

    fn field(&self, f: &mut Field, parent: Option<&str>, pass: &mut Pass) {
        let inner = &mut f.selection_set.node;
        if inner.items.is_empty() {
            return;
        }
        let ty = parent
            .and_then(|p| self.fields.get(p))
            .and_then(|fs| fs.get(f.name.node.as_str()))
            .map(String::as_str);
        self.set(inner, ty, pass);
        // `_entities`: a gateway selects a fragment on each type it sends a representation
        // of, so no entity comes back empty (and no marker is paid for on every entity).
        let entities = parent == Some("Query") && f.name.node == "_entities";
        if !entities && !self.never_empty(inner, ty, 0) {
            let pos = f.selection_set.pos;
            let marker = Field {
                alias: Some(Positioned::new(Name::new(MARKER), pos)),
                name: Positioned::new(Name::new("__typename"), pos),
                arguments: Vec::new(),
                directives: Vec::new(),
                selection_set: Positioned::new(SelectionSet::default(), pos),
            };
            let marker = Selection::Field(Positioned::new(marker, pos));
            inner.items.push(Positioned::new(marker, pos));
            pass.marked = true;
        }
    }

    /// `... on member @directives { selections }`, its selections rewritten for `member`.
    fn inline(&self, member: &str, what: &Inlined, pass: &mut Pass) -> Positioned<Selection> {
        let pos = what.pos;
        let mut set = what.set.clone();
        self.set(&mut set, Some(member), pass);
        let condition = TypeCondition {
            on: Positioned::new(Name::new(member), pos),
        };
        let fragment = InlineFragment {
            type_condition: Some(Positioned::new(condition, pos)),
            // `@include(if: $x)` / `@skip` of the fragment or spread replaced: kept.
            directives: what.directives.to_vec(),
            selection_set: Positioned::new(set, pos),
        };
        Positioned::new(
            Selection::InlineFragment(Positioned::new(fragment, pos)),
            pos,
        )
    }

    /// Whether `set` selects something for every object of type `ty` whatever the
    /// variables: a field without `@skip`/`@include`, or such an inline fragment that
    /// applies to all of them (no condition, or `ty` itself, or an interface the object
    /// `ty` implements) and does.
    fn never_empty(&self, set: &SelectionSet, ty: Option<&str>, depth: usize) -> bool {
        set.items.iter().any(|i| match &i.node {
            Selection::Field(f) => f.node.directives.is_empty(),
            Selection::InlineFragment(x) if x.node.directives.is_empty() && depth < 4 => {
                let on = x
                    .node
                    .type_condition
                    .as_ref()
                    .map(|c| c.node.on.node.as_str());
                let covers = match (on, ty) {
                    (None, _) => true,
                    (Some(c), Some(t)) => {
                        c == t
                            || (self.objects.contains(t)
                                && self
                                    .implements
                                    .get(t)
                                    .is_some_and(|i| i.iter().any(|x| x == c)))
                    }
                    _ => false,
                };
                covers && self.never_empty(&x.node.selection_set.node, ty, depth + 1)
            }
            _ => false,
        })
    }

    /// The object types an object of type `t` can be: itself, an interface's
    /// implementations, a union's members; None for a type not described here.
    fn possible<'a>(&'a self, t: &'a str) -> Option<BTreeSet<&'a str>> {
        if self.objects.contains(t) {
            return Some([t].into_iter().collect());
        }
        if let Some(members) = self.unions.get(t) {
            return Some(members.iter().map(String::as_str).collect());
        }
        self.fields.contains_key(t).then(|| {
            self.implements
                .iter()
                .filter(|(o, i)| self.objects.contains(*o) && i.iter().any(|x| x == t))
                .map(|(o, _)| o.as_str())
                .collect()
        })
    }

    /// Whether a fragment on `on` can never apply where `parent` stands: no object type is
    /// both (an inlined union fragment's `... on Admin`, or `... on Node` that only another
    /// member implements, inside `... on User`), which validation would refuse.
    fn apart(&self, on: Option<&str>, parent: Option<&str>) -> bool {
        let (Some(a), Some(b)) = (on, parent) else {
            return false;
        };
        match (self.possible(a), self.possible(b)) {
            (Some(x), Some(y)) => x.is_disjoint(&y),
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

/// The interface fields some implementation (an object or an interface) narrows, by
/// interface: where async-graphql 7.2's check (a named type equal at every list level; a
/// non-null where the interface has a nullable one is allowed) refuses what the spec's
/// covariance allows.
pub fn covariant_fields(model: &Model) -> BTreeMap<String, BTreeSet<String>> {
    fn fits(iface: &Type, imp: &Type) -> bool {
        if !iface.nullable && imp.nullable {
            return false;
        }
        match (&iface.base, &imp.base) {
            (BaseType::Named(a), BaseType::Named(b)) => a == b,
            (BaseType::List(a), BaseType::List(b)) => fits(a, b),
            _ => false,
        }
    }
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for t in model.types.values() {
        for i in t.implements.iter().filter_map(|i| model.types.get(i)) {
            for f in &i.fields {
                if t.field(&f.name).is_some_and(|own| !fits(&f.ty, &own.ty)) {
                    out.entry(i.name.clone())
                        .or_default()
                        .insert(f.name.clone());
                }
            }
        }
    }
    out
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
