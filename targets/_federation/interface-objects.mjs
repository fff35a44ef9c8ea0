// A repair of the composed supergraph for entity interfaces (`@key` on an interface) that
// other subgraphs extend with `@interfaceObject`: @theguild/federation-composition 0.27.0
// leaves a field of the interface that an interface object declares `@external` without any
// `@join__field`, which reads as "resolvable in every subgraph of the type", so Apollo's
// query planner asks the interface object's subgraph for a value it only requires
// (federation-gateway-audit's interface-object-with-requires: one fetch to `b` for `name`).
// @apollo/composition writes `@join__field(graph: A) @join__field(graph: B, external: true)`
// there; this adds the same, where it is missing, and changes nothing else.

import { parse, Kind } from 'graphql';

const isExternal = (field) =>
  (field.directives ?? []).some((d) => d.name.value === 'external' || d.name.value === 'federation__external');

// The subgraph's definition of `type`.`field` (object, interface or an extension of one).
function fieldIn(doc, type, field) {
  for (const def of doc.definitions) {
    if (def.name?.value !== type || !def.fields) continue;
    const f = def.fields.find((x) => x.name.value === field);
    if (f) return f;
  }
  return null;
}

// `supergraph` (SDL text) with the missing `@join__field`s added; `services` as composed
// ({ name, typeDefs }).
export function repairInterfaceObjectFields(supergraph, services) {
  const doc = parse(supergraph);
  // join__Graph enum values by subgraph name.
  const graphOf = new Map();
  for (const def of doc.definitions) {
    if (def.kind !== Kind.ENUM_TYPE_DEFINITION || def.name.value !== 'join__Graph') continue;
    for (const v of def.values ?? []) {
      const d = v.directives?.find((x) => x.name.value === 'join__graph');
      const name = d?.arguments?.find((a) => a.name.value === 'name')?.value?.value;
      if (name) graphOf.set(name, v.name.value);
    }
  }
  const inserts = [];
  for (const def of doc.definitions) {
    if (def.kind !== Kind.INTERFACE_TYPE_DEFINITION) continue;
    const interfaceObject = (def.directives ?? []).some(
      (d) => d.name.value === 'join__type' && d.arguments?.some((a) => a.name.value === 'isInterfaceObject' && a.value.value === true),
    );
    if (!interfaceObject) continue;
    for (const f of def.fields ?? []) {
      if ((f.directives ?? []).some((d) => d.name.value === 'join__field')) continue;
      const by = services
        .map((s) => ({ graph: graphOf.get(s.name), field: fieldIn(s.typeDefs, def.name.value, f.name.value) }))
        .filter((x) => x.graph && x.field);
      if (!by.some((x) => isExternal(x.field))) continue;
      const text = by
        .map((x) => ` @join__field(graph: ${x.graph}${isExternal(x.field) ? ', external: true' : ''})`)
        .join('');
      inserts.push({ at: f.loc.end, text });
    }
  }
  let out = supergraph;
  for (const { at, text } of inserts.sort((a, b) => b.at - a.at)) {
    out = out.slice(0, at) + text + out.slice(at);
  }
  return out;
}
