//! Subgraph SDL in both Federation flavours.
//!
//! Federation 2 SDL is exactly what async-graphql itself answers to `_service { sdl }`.
//! async-graphql cannot emit Federation 1, so the v1 SDL is derived from the same v2 SDL by
//! re-printing its parsed object types the v1 way (below): both describe one schema, and a
//! change to a resolver shows up in both.

use std::fmt::Write as _;

use async_graphql::parser::types::{
    ConstDirective, FieldDefinition, TypeDefinition, TypeKind, TypeSystemDefinition,
};
use async_graphql::parser::{parse_schema, Positioned};
use async_graphql::SDLExportOptions;

use crate::schemas::{accounts, inventory, products, reviews};
use crate::subgraph::{Federation, Subgraph};

/// The SDL `_service { sdl }` returns for this subgraph and flavour. It only fails on a bug
/// (async-graphql printing SDL its own parser refuses), never on input.
pub fn sdl(subgraph: Subgraph, federation: Federation) -> anyhow::Result<String> {
    let v2 = v2_sdl(subgraph);
    match federation {
        Federation::V2 => Ok(v2),
        Federation::V1 => to_v1(&v2, v1_extended_types(subgraph))
            .map_err(|e| anyhow::anyhow!("cannot derive the v1 SDL of {subgraph}: {e}")),
    }
}

fn v2_sdl(subgraph: Subgraph) -> String {
    // The same options async-graphql uses for its own `_service` answer.
    let options = SDLExportOptions::new().federation().compose_directive();
    let sdl = match subgraph {
        Subgraph::Accounts => accounts::schema().sdl_with_options(options),
        Subgraph::Products => products::schema().sdl_with_options(options),
        Subgraph::Reviews => reviews::schema().sdl_with_options(options),
        Subgraph::Inventory => inventory::schema().sdl_with_options(options),
    };
    without_builtin_directives(&sdl)
}

/// Built-in directives every GraphQL server already has.
const BUILTIN_DIRECTIVES: [&str; 5] = ["include", "skip", "deprecated", "specifiedBy", "oneOf"];

/// async-graphql prints definitions of the built-in `@include`/`@skip`; composition passes
/// them into the supergraph, where Apollo Router's query planner refuses them ("Directive
/// "@skip" has already been pre-inserted"). They are dropped, with their descriptions.
pub(crate) fn without_builtin_directives(sdl: &str) -> String {
    let mut out = String::with_capacity(sdl.len());
    let mut pending = String::new(); // a description block waiting for what it describes
    let mut in_description = false;
    for line in sdl.lines() {
        if in_description || line.trim_start().starts_with("\"\"\"") {
            pending.push_str(line);
            pending.push('\n');
            let quotes = line.matches("\"\"\"").count();
            if in_description {
                in_description = quotes == 0;
            } else {
                in_description = quotes == 1;
            }
            continue;
        }
        let builtin = line
            .strip_prefix("directive @")
            .map(|rest| {
                BUILTIN_DIRECTIVES
                    .iter()
                    .any(|d| rest.starts_with(&format!("{d}(")))
            })
            .unwrap_or(false);
        if !builtin {
            out.push_str(&pending);
            out.push_str(line);
            out.push('\n');
        }
        pending.clear();
    }
    out.push_str(&pending);
    out
}

/// Entity types a subgraph extends rather than owns: Federation 1 spells them
/// `extend type` and marks their key fields `@external`.
fn v1_extended_types(subgraph: Subgraph) -> &'static [&'static str] {
    match subgraph {
        Subgraph::Accounts | Subgraph::Products => &[],
        Subgraph::Reviews => &["User", "Product"],
        Subgraph::Inventory => &["Product"],
    }
}

/// Directives a Federation 1 gateway knows; `@shareable` and friends are Federation 2 only.
const V1_DIRECTIVES: [&str; 4] = ["key", "external", "requires", "provides"];

/// Re-prints the object types of a v2 SDL as Federation 1: no `@link`, no directive
/// definitions (a v1 gateway brings its own), `extend type Query`, `extend type` plus
/// `@external` keys for the types in `extended`, and only v1 directives.
pub(crate) fn to_v1(v2: &str, extended: &[&str]) -> anyhow::Result<String> {
    let doc = parse_schema(v2)?;
    let mut out = String::new();
    for definition in &doc.definitions {
        let TypeSystemDefinition::Type(ty) = definition else {
            continue;
        };
        let ty = &ty.node;
        let TypeKind::Object(object) = &ty.kind else {
            anyhow::bail!("only object types are expected, found {}", ty.name.node);
        };
        let name = ty.name.node.as_str();
        let extend = name == "Query" || extended.contains(&name);
        let keys = key_fields(ty);
        if !out.is_empty() {
            out.push('\n');
        }
        if extend {
            out.push_str("extend ");
        }
        write!(out, "type {name}")?;
        write_directives(&mut out, &ty.directives)?;
        out.push_str(" {\n");
        for field in &object.fields {
            let is_key = extend && keys.iter().any(|k| k == field.node.name.node.as_str());
            write_field(&mut out, &field.node, is_key)?;
        }
        out.push_str("}\n");
    }
    Ok(out)
}

/// Field names listed in the type's `@key(fields: ...)` directives (flat keys only, which is
/// all this demo has).
fn key_fields(ty: &TypeDefinition) -> Vec<String> {
    ty.directives
        .iter()
        .filter(|d| d.node.name.node == "key")
        .filter_map(|d| d.node.get_argument("fields"))
        .filter_map(|v| match &v.node {
            async_graphql::Value::String(s) => Some(s.clone()),
            _ => None,
        })
        .flat_map(|s| s.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

fn write_field(
    out: &mut String,
    field: &FieldDefinition,
    external_key: bool,
) -> anyhow::Result<()> {
    write!(out, "\t{}", field.name.node)?;
    if !field.arguments.is_empty() {
        let args: Vec<String> = field
            .arguments
            .iter()
            .map(|a| match &a.node.default_value {
                Some(default) => format!(
                    "{}: {} = {}",
                    a.node.name.node, a.node.ty.node, default.node
                ),
                None => format!("{}: {}", a.node.name.node, a.node.ty.node),
            })
            .collect();
        write!(out, "({})", args.join(", "))?;
    }
    write!(out, ": {}", field.ty.node)?;
    let already_external = field
        .directives
        .iter()
        .any(|d| d.node.name.node == "external");
    if external_key && !already_external {
        out.push_str(" @external");
    }
    write_directives(out, &field.directives)?;
    out.push('\n');
    Ok(())
}

fn write_directives(
    out: &mut String,
    directives: &[Positioned<ConstDirective>],
) -> anyhow::Result<()> {
    for directive in directives {
        let d = &directive.node;
        if !V1_DIRECTIVES.contains(&d.name.node.as_str()) {
            continue;
        }
        write!(out, " @{}", d.name.node)?;
        if !d.arguments.is_empty() {
            let args: Vec<String> = d
                .arguments
                .iter()
                .map(|(name, value)| format!("{}: {}", name.node, value.node))
                .collect();
            write!(out, "({})", args.join(", "))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_directive_definitions_are_dropped_with_their_descriptions() {
        let sdl = "type A {\n\ta: Int\n}\n\n\"\"\"\nDirects the executor to skip.\n\"\"\"\ndirective @skip(if: Boolean!) on FIELD\n\"\"\"\nmine\n\"\"\"\ndirective @mine on FIELD\n";
        let out = without_builtin_directives(sdl);
        assert!(
            !out.contains("@skip") && !out.contains("Directs the executor"),
            "{out}"
        );
        assert!(
            out.contains("\"\"\"\nmine\n\"\"\"\ndirective @mine"),
            "{out}"
        );
        for sg in Subgraph::ALL {
            assert!(!v2_sdl(sg).contains("directive @include"));
        }
    }

    #[test]
    fn v2_links_the_federation_2_spec() {
        for g in Subgraph::ALL {
            let sdl = sdl(g, Federation::V2).unwrap();
            assert!(sdl.contains("@link("), "{g}: {sdl}");
            assert!(
                sdl.contains("https://specs.apollo.dev/federation/v2"),
                "{g}"
            );
        }
    }

    #[test]
    fn v1_has_no_link_and_extends_foreign_entities_with_external_keys() {
        for g in Subgraph::ALL {
            let sdl = sdl(g, Federation::V1).unwrap();
            assert!(!sdl.contains("@link"), "{g}: {sdl}");
            assert!(!sdl.contains("@shareable"), "{g}: {sdl}");
            assert!(!sdl.contains("directive @"), "{g}: {sdl}");
        }
        let reviews = sdl(Subgraph::Reviews, Federation::V1).unwrap();
        assert!(
            reviews.contains("extend type User @key(fields: \"id\") {\n\tid: ID! @external\n"),
            "{reviews}"
        );
        assert!(
            reviews.contains(
                "extend type Product @key(fields: \"upc\") {\n\tupc: String! @external\n"
            ),
            "{reviews}"
        );
        assert!(
            reviews.contains("\ntype Review @key(fields: \"id\")"),
            "{reviews}"
        );
        let inventory = sdl(Subgraph::Inventory, Federation::V1).unwrap();
        assert!(
            inventory.contains("shippingEstimate: Int @requires(fields: \"price weight\")"),
            "{inventory}"
        );
        let products = sdl(Subgraph::Products, Federation::V1).unwrap();
        assert!(
            products.contains("extend type Query {\n\ttopProducts(first: Int = 5): [Product]\n}"),
            "{products}"
        );
        assert!(
            products.starts_with("type Product @key(fields: \"upc\") {"),
            "{products}"
        );
    }

    /// (type, field, field type) triples of a SDL's object types.
    fn shape(sdl: &str) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for d in parse_schema(sdl).unwrap().definitions {
            if let TypeSystemDefinition::Type(ty) = d {
                if let TypeKind::Object(o) = &ty.node.kind {
                    for f in &o.fields {
                        out.push((
                            ty.node.name.node.to_string(),
                            f.node.name.node.to_string(),
                            f.node.ty.node.to_string(),
                        ));
                    }
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn v1_and_v2_describe_the_same_schema() {
        for g in Subgraph::ALL {
            let v1 = shape(&sdl(g, Federation::V1).unwrap());
            assert!(!v1.is_empty());
            assert_eq!(v1, shape(&sdl(g, Federation::V2).unwrap()), "{g}");
        }
    }
}
