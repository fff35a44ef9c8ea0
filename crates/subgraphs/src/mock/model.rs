//! A Federation v2 subgraph SDL read into what the mock needs to serve it: its types, their
//! fields (with arguments and types), their `@key`s, and the federation directives that
//! change where a value comes from (`@external`, `@requires`). Directives the mock cannot
//! honour are listed as warnings, one per field, so the rest of the graph is still served.

use std::collections::BTreeMap;

use async_graphql::parser::parse_schema;
use async_graphql::parser::types::{
    ConstDirective, FieldDefinition, InputValueDefinition, Type, TypeKind, TypeSystemDefinition,
};
use async_graphql::{Positioned, Value};

/// Directives that change nothing in how a value is computed (the SDL is served as given,
/// so composition still sees them) or that the mock honours itself.
const KNOWN: &[&str] = &[
    "key",
    "external",
    "requires",
    "provides",
    "shareable",
    "deprecated",
    "specifiedBy",
    "tag",
    "inaccessible",
    "override",
    "link",
    "composeDirective",
    "oneOf",
    "extends",
];

#[derive(Debug, Clone)]
pub struct Model {
    /// By name, in a stable order, so the schema is built the same way every time.
    pub types: BTreeMap<String, TypeDef>,
    pub mutation: Option<String>,
    /// `Type.field: why`, one per directive not honoured.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Object,
    Interface,
    Union(Vec<String>),
    Enum(Vec<String>),
    Input,
    Scalar,
}

#[derive(Debug, Clone)]
pub struct TypeDef {
    pub name: String,
    pub kind: Kind,
    pub fields: Vec<FieldDef>,
    pub implements: Vec<String>,
    pub keys: Vec<Key>,
    /// `@interfaceObject`: an object type here that stands for an entity interface other
    /// subgraphs define with its implementations (`identity::Keys` gives the concrete type).
    pub interface_object: bool,
    /// Input object fields (for input types only).
    pub inputs: Vec<ArgDef>,
}

/// One `@key`.
#[derive(Debug, Clone)]
pub struct Key {
    pub raw: String,
    /// The top-level field names (`sku variation { id }` → sku, variation).
    pub fields: Vec<String>,
    /// The leaf fields' paths (→ [sku], [variation, id]).
    pub paths: Vec<Vec<String>>,
    pub resolvable: bool,
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    pub ty: Type,
    pub args: Vec<ArgDef>,
    /// The `@requires` field names: their values arrive in the representation.
    pub requires: Vec<String>,
    /// The `@requires` field set as written (`"price dimensions { weight }"`), empty
    /// when none: what a gateway fetches to build the representation.
    pub requires_set: String,
    /// `@external`: the value is another subgraph's, served here only as a key, a required
    /// value or a provided one.
    pub external: bool,
    /// The top-level names of `@provides`: the fields of the returned entity this subgraph
    /// serves on this path although they are `@external` here.
    pub provides: Vec<String>,
    /// Whether a value of it may be null (one in `Mock::null_every`): nullable here and in
    /// every subgraph that declares it, and not a root field (`shared::settle_nulls`).
    pub nulls: bool,
}

#[derive(Debug, Clone)]
pub struct ArgDef {
    pub name: String,
    pub ty: Type,
    pub default: Option<Value>,
}

/// Reads `sdl`; `file` only names it in the error.
pub fn parse(file: &str, sdl: &str) -> anyhow::Result<Model> {
    let doc = parse_schema(sdl).map_err(|e| {
        let at = e
            .positions()
            .next()
            .map(|p| format!("{}:{}", p.line, p.column))
            .unwrap_or_else(|| "?".into());
        anyhow::anyhow!("{file}:{at}: {e}")
    })?;
    let mut model = Model {
        types: BTreeMap::new(),
        mutation: None,
        warnings: Vec::new(),
    };
    // Root types named otherwise (`schema { query: Queries }`), as (given name, role).
    let mut roots: Vec<(String, &str)> = Vec::new();
    for def in doc.definitions {
        let def = match def {
            TypeSystemDefinition::Type(def) => def,
            TypeSystemDefinition::Schema(s) => {
                let s = s.node;
                for (name, role) in [(s.query, "Query"), (s.mutation, "Mutation")] {
                    if let Some(n) = name.filter(|n| n.node.as_str() != role) {
                        roots.push((n.node.to_string(), role));
                    }
                }
                continue;
            }
            // `extend schema @link(...)` and directive definitions describe the
            // federation machinery, not data.
            TypeSystemDefinition::Directive(_) => continue,
        };
        let def = def.node;
        let name = def.name.node.to_string();
        // Federation's own types (`_Any`, `link__Import`, `federation__FieldSet`, ...)
        // are declared by async-graphql itself or only name directive arguments.
        if name.starts_with('_') || name.contains("__") || name == "FieldSet" {
            continue;
        }
        let entry = model.types.entry(name.clone()).or_insert_with(|| TypeDef {
            name: name.clone(),
            kind: Kind::Object,
            fields: Vec::new(),
            implements: Vec::new(),
            keys: Vec::new(),
            interface_object: false,
            inputs: Vec::new(),
        });
        type_directives(&name, &def.directives, entry, &mut model.warnings);
        let (kind, fields, implements) = match def.kind {
            TypeKind::Object(o) => (Kind::Object, o.fields, o.implements),
            TypeKind::Interface(i) => (Kind::Interface, i.fields, i.implements),
            TypeKind::Union(u) => (
                Kind::Union(u.members.iter().map(|m| m.node.to_string()).collect()),
                Vec::new(),
                Vec::new(),
            ),
            TypeKind::Enum(e) => (
                Kind::Enum(
                    // An @inaccessible member is not in the API schema: a gateway would
                    // have to null a field returning it, so the mock never does.
                    e.values
                        .iter()
                        .filter(|v| {
                            !v.node
                                .directives
                                .iter()
                                .any(|d| d.node.name.node == "inaccessible")
                        })
                        .map(|v| v.node.value.node.to_string())
                        .collect(),
                ),
                Vec::new(),
                Vec::new(),
            ),
            TypeKind::InputObject(i) => {
                entry.inputs.extend(i.fields.iter().map(arg_of));
                (Kind::Input, Vec::new(), Vec::new())
            }
            TypeKind::Scalar => (Kind::Scalar, Vec::new(), Vec::new()),
        };
        // An `extend type` adds to what is there; only a full definition sets the kind.
        if !def.extend || entry.fields.is_empty() {
            entry.kind = kind;
        }
        entry
            .implements
            .extend(implements.iter().map(|i| i.node.to_string()));
        for f in fields {
            let field = field_of(&name, &f.node, &mut model.warnings);
            if !entry.fields.iter().any(|g| g.name == field.name) {
                entry.fields.push(field);
            }
        }
    }
    // A gateway sends a subgraph root fields, never its root type's name: the mock serves
    // a renamed root as `Query` (or `Mutation`), which is what the supergraph calls it.
    for (given, role) in roots {
        if let Some(mut t) = model.types.remove(&given) {
            t.name = role.to_string();
            model.types.insert(role.to_string(), t);
        }
    }
    if model.types.contains_key("Mutation") {
        model.mutation = Some("Mutation".into());
    }
    if model.types.remove("Subscription").is_some() {
        model
            .warnings
            .push("Subscription: subscriptions are not served by the mock".into());
    }
    Ok(model)
}

/// A type's own directives: its `@key`s and `@interfaceObject`.
fn type_directives(
    name: &str,
    directives: &[Positioned<ConstDirective>],
    entry: &mut TypeDef,
    warnings: &mut Vec<String>,
) {
    for d in directives {
        match d.node.name.node.as_str() {
            "key" => match key_of(&d.node) {
                Ok(key) => entry.keys.push(key),
                Err(why) => warnings.push(format!("{name}: {why}")),
            },
            "interfaceObject" => entry.interface_object = true,
            _ => {}
        }
    }
}

fn key_of(d: &ConstDirective) -> Result<Key, String> {
    let raw = match d.get_argument("fields").map(|v| &v.node) {
        Some(Value::String(s)) => s.clone(),
        _ => return Err("@key without a fields string is ignored".into()),
    };
    let paths = leaf_paths(&raw);
    if paths.is_empty() {
        return Err(format!(
            "@key(fields: \"{raw}\") selects no field and is ignored"
        ));
    }
    let resolvable = !matches!(
        d.get_argument("resolvable").map(|v| &v.node),
        Some(Value::Boolean(false))
    );
    Ok(Key {
        fields: top_level(&raw),
        paths,
        raw,
        resolvable,
    })
}

fn arg_of(a: &Positioned<InputValueDefinition>) -> ArgDef {
    ArgDef {
        name: a.node.name.node.to_string(),
        ty: a.node.ty.node.clone(),
        default: a.node.default_value.as_ref().map(|v| v.node.clone()),
    }
}

fn field_of(owner: &str, f: &FieldDefinition, warnings: &mut Vec<String>) -> FieldDef {
    let name = f.name.node.to_string();
    let (mut requires, mut requires_set, mut provides) = (Vec::new(), String::new(), Vec::new());
    let mut external = false;
    for d in &f.directives {
        let directive = d.node.name.node.as_str();
        let fields = match d.node.get_argument("fields").map(|v| &v.node) {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        };
        match directive {
            _ if !KNOWN.contains(&directive) => warnings.push(format!(
                "{owner}.{name}: unknown directive @{directive} is ignored"
            )),
            _ => {}
        }
        match directive {
            "requires" => {
                requires.extend(top_level(&fields));
                requires_set = fields;
            }
            "provides" => provides.extend(top_level(&fields)),
            "external" => external = true,
            _ => {}
        }
    }
    FieldDef {
        name,
        ty: f.ty.node.clone(),
        args: f.arguments.iter().map(arg_of).collect(),
        requires,
        requires_set,
        external,
        provides,
        nulls: f.ty.node.nullable,
    }
}

/// The paths of a field set's leaves, e.g. `a b { c d } e` → [a], [b, c], [b, d], [e].
fn leaf_paths(set: &str) -> Vec<Vec<String>> {
    let spaced = set.replace('{', " { ").replace('}', " } ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut out = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        match *token {
            "{" => {}
            "}" => {
                stack.pop();
            }
            name if tokens.get(i + 1) == Some(&"{") => stack.push(name.to_string()),
            name => out.push(stack.iter().cloned().chain([name.to_string()]).collect()),
        }
    }
    out
}

/// The top-level names of a field set, e.g. `a b { c } d` → a, b, d.
fn top_level(set: &str) -> Vec<String> {
    let spaced = set.replace('{', " { ").replace('}', " } ");
    let mut depth = 0usize;
    let mut out = Vec::new();
    for token in spaced.split_whitespace() {
        match token {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            t if depth == 0 => out.push(t.to_string()),
            _ => {}
        }
    }
    out
}

impl TypeDef {
    pub fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }
}

impl Model {
    /// The object types implementing interface `name`, in name order.
    pub fn implementers<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a TypeDef> + 'a {
        self.types.values().filter(move |o| {
            matches!(o.kind, Kind::Object) && o.implements.iter().any(|i| i == name)
        })
    }
}

/// The named type under any list and non-null wrappers.
pub fn base_name(ty: &Type) -> &str {
    match &ty.base {
        async_graphql::parser::types::BaseType::Named(n) => n.as_str(),
        async_graphql::parser::types::BaseType::List(inner) => base_name(inner),
    }
}
