//! The async-graphql dynamic schema of one mock subgraph: every type of its SDL, every field
//! resolved by `resolve` (after burning its `--cost`, if it has one), `_entities` for every
//! type with a resolvable `@key`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use async_graphql::dynamic::{
    Enum, Field, FieldFuture, InputObject, InputValue, Interface, InterfaceField, Object,
    ResolverContext, Scalar, Schema, TypeRef, Union,
};
use async_graphql::parser::types::{BaseType, Type};
use serde_json::Map;

use super::model::{ArgDef, FieldDef, Kind};
use super::resolve::{Mock, Node};

/// The schema of `mock`; `costs` by `Type.field` (see `cost.rs`); `narrowed`: the interface
/// fields an implementation narrows, left out of the interface (`conform::covariant_fields`,
/// whose rewrite selects them on the implementations instead).
pub fn build(
    mock: Arc<Mock>,
    costs: &BTreeMap<String, Duration>,
    narrowed: &BTreeMap<String, BTreeSet<String>>,
) -> anyhow::Result<Schema> {
    let model = &mock.model;
    let mut builder = Schema::build("Query", model.mutation.as_deref(), None).enable_federation();
    let has_entities = model
        .types
        .values()
        .any(|t| t.keys.iter().any(|k| k.resolvable));
    if !model.types.contains_key("Query") && has_entities {
        // A subgraph may only contribute entities; `_entities` and `_service` then make
        // up its Query.
        builder = builder.register(Object::new("Query"));
    } else if !model.types.contains_key("Query") {
        // Nor entities nor root fields (a subgraph of mutations only): async-graphql wants
        // a field on Query, which no gateway asks for (`_service` serves the SDL as given).
        builder = builder.register(Object::new("Query").field(Field::new(
            "_mockPlaceholder",
            TypeRef::named(TypeRef::BOOLEAN),
            |_| FieldFuture::new(async { Ok(Some(async_graphql::Value::Boolean(true))) }),
        )));
    }
    for t in model.types.values() {
        builder = match &t.kind {
            Kind::Object => {
                let mut o = Object::new(t.name.clone());
                // async-graphql makes a whole object unresolvable with any unresolvable key;
                // one resolvable key is enough for `_entities` to resolve it (the gateway
                // sends only keys the served SDL marks resolvable).
                let resolvable = t.keys.iter().any(|k| k.resolvable);
                for k in &t.keys {
                    o = if resolvable {
                        o.key(k.raw.clone())
                    } else {
                        o.unresolvable(k.raw.clone())
                    };
                }
                for i in &t.implements {
                    o = o.implement(i.clone());
                }
                for f in &t.fields {
                    let cost = costs.get(&format!("{}.{}", t.name, f.name)).copied();
                    o = o.field(field(&mock, &t.name, f, cost));
                }
                builder.register(o)
            }
            Kind::Interface => {
                let mut i = Interface::new(t.name.clone());
                let narrowed = narrowed.get(&t.name);
                for f in t
                    .fields
                    .iter()
                    .filter(|f| narrowed.is_none_or(|n| !n.contains(&f.name)))
                {
                    let mut field = InterfaceField::new(f.name.clone(), type_ref(&f.ty));
                    for a in &f.args {
                        field = field.argument(input(a));
                    }
                    i = i.field(field);
                }
                builder.register(i)
            }
            Kind::Union(members) => {
                builder.register(members.iter().fold(Union::new(t.name.clone()), |u, m| {
                    u.possible_type(m.clone())
                }))
            }
            Kind::Enum(members) => {
                builder.register(Enum::new(t.name.clone()).items(members.iter().cloned()))
            }
            Kind::Input => builder.register(
                t.inputs
                    .iter()
                    .fold(InputObject::new(t.name.clone()), |o, a| o.field(input(a))),
            ),
            Kind::Scalar => builder.register(Scalar::new(t.name.clone())),
        };
    }
    let entities = mock.clone();
    builder
        .entity_resolver(move |ctx| resolve_entities(entities.clone(), ctx))
        .finish()
        .map_err(|e| anyhow::anyhow!("{}", e.0))
}

fn field(mock: &Arc<Mock>, owner: &str, f: &FieldDef, cost: Option<Duration>) -> Field {
    // Shared, not copied, by every resolution of the field: this runs per field per request.
    let (mock, owner, def): (Arc<Mock>, Arc<str>, Arc<FieldDef>) =
        (mock.clone(), owner.into(), Arc::new(f.clone()));
    let mut field = Field::new(f.name.clone(), type_ref(&f.ty), move |ctx| {
        let (mock, owner, def) = (mock.clone(), owner.clone(), def.clone());
        FieldFuture::new(async move {
            if let Some(cost) = cost {
                super::cost::burn(cost);
            }
            // Root fields have no parent value: the root type's fixed seed stands in.
            let root;
            let node = match ctx.parent_value.downcast_ref::<Node>() {
                Some(node) => node,
                None if &*owner == "Query" || &*owner == "Mutation" => {
                    root = Mock::root(&owner);
                    &root
                }
                None => return Err(format!("internal: {owner} has no mock parent value").into()),
            };
            let mut args = Map::new();
            for (name, v) in ctx.args.iter() {
                args.insert(name.to_string(), v.as_value().clone().into_json()?);
            }
            mock.field(&owner, &def, node, &args)
        })
    });
    for a in &f.args {
        field = field.argument(input(a));
    }
    field
}

fn input(a: &ArgDef) -> InputValue {
    let v = InputValue::new(a.name.clone(), type_ref(&a.ty));
    match &a.default {
        Some(d) => v.default_value(d.clone()),
        None => v,
    }
}

fn type_ref(ty: &Type) -> TypeRef {
    let inner = match &ty.base {
        BaseType::Named(n) => TypeRef::Named(n.to_string().into()),
        BaseType::List(i) => TypeRef::List(Box::new(type_ref(i))),
    };
    if ty.nullable {
        inner
    } else {
        TypeRef::NonNull(Box::new(inner))
    }
}

fn resolve_entities(mock: Arc<Mock>, ctx: ResolverContext<'_>) -> FieldFuture<'_> {
    FieldFuture::new(async move {
        let mut out = Vec::new();
        for item in ctx.args.try_get("representations")?.list()?.iter() {
            let rep = item.as_value().clone().into_json()?;
            let node = mock.entity(&rep)?;
            let type_name = node.type_name.clone();
            out.push(async_graphql::dynamic::FieldValue::owned_any(node).with_type(type_name));
        }
        Ok(Some(async_graphql::dynamic::FieldValue::list(out)))
    })
}
