//! The wide graph as async-graphql dynamic schemas: one per subgraph (federated, resolving
//! its entities by key) and a plain monolith of all twelve that computes the expected
//! answers without any gateway. Both resolve every field from the same pure functions of
//! `spec`, so they agree by construction and a gateway is right when it returns what the
//! monolith does.

use async_graphql::dynamic::{
    Field, FieldFuture, FieldValue, InputValue, Object, ResolverContext, Schema, SchemaError,
    TypeRef,
};

use super::spec::{self, spec, Scalar, INSTANCES};

/// One entity instance: the parent value every field resolver reads.
#[derive(Debug, Clone, Copy)]
struct Ref {
    e: usize,
    n: u32,
}

/// The root list's default length.
const DEFAULT_FIRST: i64 = 5;

/// The schema subgraph `index` (in [`spec::NAMES`] order) serves.
pub fn subgraph(index: usize) -> Result<Schema, SchemaError> {
    let s = spec();
    let own = s
        .by_subgraph(spec::NAMES[index])
        .ok_or_else(|| SchemaError(format!("no entity for subgraph {index}")))?;
    let owned = entity_object(own, true);
    let mut query = Object::new("Query");
    if own == s.root {
        query = query.field(items_field(own));
    }
    let mut builder = Schema::build("Query", None, None).enable_federation();
    if let Some(p) = s.entities[own].parent {
        // The parent's type with its key alone, plus the one field this subgraph adds.
        let parent = entity_object(p, false).field(link_field(own));
        builder = builder.register(parent);
    }
    // Children link from this type in their own subgraphs; nothing more to add here.
    builder
        .register(owned)
        .register(query)
        .entity_resolver(resolve_entities)
        .finish()
}

/// All twelve types with all their fields, unfederated.
pub fn monolith() -> Result<Schema, SchemaError> {
    let s = spec();
    let mut builder = Schema::build("Query", None, None);
    for e in 0..s.entities.len() {
        let mut object = entity_object(e, true);
        for c in s.children(e) {
            object = object.field(link_field(c));
        }
        builder = builder.register(object);
    }
    builder
        .register(Object::new("Query").field(items_field(s.root)))
        .finish()
}

/// Type `e` with its key, and its scalar fields when `with_fields` (the owner).
fn entity_object(e: usize, with_fields: bool) -> Object {
    let entity = &spec().entities[e];
    let mut object = Object::new(entity.type_name)
        .key(entity.key)
        .field(Field::new(
            entity.key,
            TypeRef::named_nn(TypeRef::ID),
            |ctx| {
                FieldFuture::new(async move {
                    let r = parent(&ctx)?;
                    Ok(Some(FieldValue::value(spec::key_value(r.e, r.n))))
                })
            },
        ));
    if with_fields {
        for (f, &(name, scalar)) in entity.fields.iter().enumerate() {
            object = object.field(scalar_field(name, scalar, f));
        }
    }
    object
}

fn scalar_field(name: &str, scalar: Scalar, f: usize) -> Field {
    Field::new(name, TypeRef::named(scalar.graphql_name()), move |ctx| {
        FieldFuture::new(async move {
            let r = parent(&ctx)?;
            Ok(Some(FieldValue::value(spec::field_value(
                r.e, r.n, f, scalar,
            ))))
        })
    })
}

/// The field on the parent's type that returns entity `child`.
fn link_field(child: usize) -> Field {
    let entity = &spec().entities[child];
    Field::new(
        entity.link.as_str(),
        TypeRef::named(entity.type_name),
        move |ctx| {
            FieldFuture::new(async move {
                let r = parent(&ctx)?;
                let n = spec::linked_instance(r.e, r.n, child);
                Ok(Some(FieldValue::owned_any(Ref { e: child, n })))
            })
        },
    )
}

/// `items(first: Int = 5): [Root]`, the first `first` instances of the root type (all of
/// them for an explicit null, none when negative).
fn items_field(root: usize) -> Field {
    Field::new(
        "items",
        TypeRef::named_list(spec().entities[root].type_name),
        move |ctx| {
            FieldFuture::new(async move {
                let first = match ctx.args.get("first") {
                    Some(v) if !v.is_null() => v.i64()?,
                    _ => INSTANCES as i64,
                };
                let n = first.clamp(0, INSTANCES as i64) as u32;
                Ok(Some(FieldValue::list(
                    (1..=n).map(|n| FieldValue::owned_any(Ref { e: root, n })),
                )))
            })
        },
    )
    .argument(InputValue::new("first", TypeRef::named(TypeRef::INT)).default_value(DEFAULT_FIRST))
}

fn parent<'a>(ctx: &'a ResolverContext<'_>) -> async_graphql::Result<&'a Ref> {
    ctx.parent_value.try_downcast_ref::<Ref>()
}

/// `_entities(representations: [_Any!]!)`: each representation by its type and key; one
/// that names no entity of ours is an error (as in the demo's subgraphs), never wrong data.
fn resolve_entities(ctx: ResolverContext<'_>) -> FieldFuture<'_> {
    FieldFuture::new(async move {
        let s = spec();
        let mut out = Vec::new();
        for item in ctx.args.try_get("representations")?.list()?.iter() {
            let item = item.object()?;
            let type_name = item.try_get("__typename")?.string()?;
            let e = s
                .by_type(type_name)
                .ok_or_else(|| format!("no entity type {type_name} in this graph"))?;
            let key = s.entities[e].key;
            let value = item.get(key).and_then(|v| v.string().ok()).unwrap_or("");
            let n = spec::instance_of(e, value)
                .ok_or_else(|| format!("no {type_name} with {key} \"{value}\""))?;
            out.push(FieldValue::owned_any(Ref { e, n }).with_type(s.entities[e].type_name));
        }
        Ok(Some(FieldValue::list(out)))
    })
}
