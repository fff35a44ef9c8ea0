// Extracts the subgraph SDL from a Federation v2 supergraph (issue 27, docs/own-graph.md):
// for a user who has only the supergraph.
//
//   node targets/_federation/extract.mjs --supergraph FILE --out DIR
//
// writes DIR/<name>.graphql for every member of the supergraph's `join__Graph` enum, <name>
// being its `@join__graph(name:)` lowercased (characters other than a-z, 0-9, '-' and '_'
// become '-'), and prints the names. DIR is then a folder `compose.mjs --dir` composes and
// `gqlbench-subgraphs mock --dir` serves.
//
// @theguild/federation-composition (the library compose.mjs uses) exports no extraction
// helper, so this reads the supergraph's join spec (join v0.2 to v0.5) with graphql-js:
//   - a type, enum value, union member or implemented interface belongs to the subgraphs its
//     @join__type / @join__enumValue / @join__unionMember / @join__implements name (a type
//     with none of them: every subgraph);
//   - a field belongs to the subgraphs its @join__field names (none: those of its type), with
//     that subgraph's type (`type:`), @external, @requires, @provides and @override;
//   - @join__type's keys become @key (resolvable: false kept), isInterfaceObject an object
//     type with @interfaceObject;
//   - what a supergraph does not record is derived: @shareable on every object-type field
//     that two or more subgraphs resolve (or one resolves and another @provides);
//   - @tag, @inaccessible, @authenticated, @requiresScopes, @policy, @cost, @listSize,
//     @deprecated, @specifiedBy and @oneOf are kept on every subgraph holding the element
//     (a supergraph does not say which subgraph applied them), but not the access-control
//     ones on an interface (composition copies them there; a subgraph may not have them);
//     any other applied directive is left out and named on stderr.
// Each file starts with `extend schema @link(url: "https://specs.apollo.dev/federation/v2.N",
// import: [...])`, N the least version its directives need (at least 2.3).
//
// Exit 0 on success; 1 when FILE cannot be read, does not parse, or is no supergraph (no
// join__Graph enum; join v0.1, i.e. Federation 1 supergraphs, is refused), or when DIR
// cannot be written; 2 on bad usage.

import { readFileSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, parseType, print, visit } from 'graphql';

function usage(msg) {
  if (msg) console.error(`extract: ${msg}`);
  console.error('usage: node targets/_federation/extract.mjs --supergraph <file> --out <dir>');
  process.exit(2);
}

function fail(msg) {
  console.error(`extract: ${msg}`);
  process.exit(1);
}

function parseArgs(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--supergraph' || a === '--out') {
      const v = argv[++i];
      if (!v || v.startsWith('--')) usage(`${a} needs a value`);
      o[a.slice(2)] = v;
    } else if (a === '-h' || a === '--help') usage();
    else usage(`unknown argument ${JSON.stringify(a)}`);
  }
  if (!o.supergraph) usage('missing --supergraph <file>');
  if (!o.out) usage('missing --out <dir>');
  return o;
}

// Directives kept as they are on every subgraph holding the element, with the federation
// version that first has them (0: GraphQL's own, never imported).
const KEPT = {
  tag: 2.0,
  inaccessible: 2.0,
  authenticated: 2.5,
  requiresScopes: 2.5,
  policy: 2.6,
  cost: 2.9,
  listSize: 2.9,
  deprecated: 0,
  specifiedBy: 0,
  oneOf: 0,
};
const AUTH = new Set(['authenticated', 'requiresScopes', 'policy']);
const JOIN = new Set([
  'join__type',
  'join__field',
  'join__implements',
  'join__unionMember',
  'join__enumValue',
  'join__graph',
  'join__owner',
  'join__directive',
  'link',
  'core',
]);
// Types of the specs a supergraph links, never part of a subgraph.
const SPEC_TYPE = /^(join|link|core|requiresScopes|policy|federation|context|connect|cost|listSize|tag|inaccessible|authenticated)__/;

const argsOf = (d) => Object.fromEntries((d.arguments ?? []).map((a) => [a.name.value, a.value]));
const str = (v) => (v && (v.kind === Kind.STRING || v.kind === Kind.ENUM) ? v.value : undefined);
const bool = (v) => (v && v.kind === Kind.BOOLEAN ? v.value : undefined);
const named = (node, name) => (node.directives ?? []).filter((d) => d.name.value === name);

const nameNode = (value) => ({ kind: Kind.NAME, value });
const strValue = (value) => ({ kind: Kind.STRING, value });
const directive = (name, args = {}) => ({
  kind: Kind.DIRECTIVE,
  name: nameNode(name),
  arguments: Object.entries(args).map(([k, v]) => ({ kind: Kind.ARGUMENT, name: nameNode(k), value: v })),
});

// Top-level and nested field names of a field set ("a b { c }"), for @provides.
function fieldSetPaths(returnType, set, types, out) {
  let doc;
  try {
    doc = parse(`{ ${set} }`, { noLocation: true });
  } catch {
    return;
  }
  const walk = (typeName, selections) => {
    for (const s of selections) {
      if (s.kind === Kind.FIELD) {
        out.add(`${typeName}.${s.name.value}`);
        if (s.selectionSet) {
          const t = types.get(typeName);
          const f = t?.fields?.find((x) => x.name.value === s.name.value);
          if (f) walk(namedTypeOf(f.type), s.selectionSet.selections);
        }
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        walk(s.typeCondition?.name.value ?? typeName, s.selectionSet.selections);
      }
    }
  };
  walk(returnType, doc.definitions[0].selectionSet.selections);
}

function namedTypeOf(t) {
  while (t.kind !== Kind.NAMED_TYPE) t = t.type;
  return t.name.value;
}

export function extractSubgraphs(sdl) {
  let doc;
  try {
    doc = parse(sdl);
  } catch (err) {
    const at = err.locations?.[0];
    return { error: `does not parse${at ? ` (line ${at.line}, column ${at.column})` : ''}: ${err.message}` };
  }
  const graphEnum = doc.definitions.find(
    (d) => d.kind === Kind.ENUM_TYPE_DEFINITION && d.name.value === 'join__Graph',
  );
  if (!graphEnum || !graphEnum.values?.length) {
    return { error: 'is not a supergraph: it has no `enum join__Graph` (one value per subgraph, each with @join__graph(name:, url:))' };
  }
  if (doc.definitions.some((d) => (d.directives ?? []).some((x) => x.name.value === 'join__owner'))) {
    return { error: 'is a Federation 1 supergraph (join v0.1, @join__owner): only Federation 2 supergraphs (join v0.2 and later) are read' };
  }
  // Enum value (as used in join directives) -> subgraph name.
  const graphs = new Map();
  for (const v of graphEnum.values) {
    const g = named(v, 'join__graph')[0];
    const name = g && str(argsOf(g).name);
    if (!name) return { error: `is not a supergraph: join__Graph.${v.name.value} has no @join__graph(name:)` };
    graphs.set(v.name.value, name);
  }
  const enumNames = [...graphs.keys()];
  const graphOf = (v) => (v && v.kind === Kind.ENUM ? v.value : undefined);

  const typeDefs = doc.definitions.filter(
    (d) =>
      d.kind !== Kind.SCHEMA_DEFINITION &&
      d.kind !== Kind.SCHEMA_EXTENSION &&
      d.kind !== Kind.DIRECTIVE_DEFINITION &&
      'name' in d &&
      !SPEC_TYPE.test(d.name.value),
  );
  const types = new Map(typeDefs.map((d) => [d.name.value, d]));
  const dropped = new Set();

  // Directives kept on an element (for every subgraph holding it), noting what is left out.
  // On an interface and its fields, the access-control directives are not kept: composition
  // copies them there from the implementations, and refuses them there in a subgraph.
  const keep = (node, where, onInterface = false) =>
    (node.directives ?? []).filter((d) => {
      const n = d.name.value;
      if (JOIN.has(n)) return false;
      if (onInterface && AUTH.has(n)) return false;
      if (n in KEPT) return true;
      dropped.add(`@${n} (on ${where})`);
      return false;
    });

  // Which graphs hold a type: its @join__type graphs, or every graph.
  const typeGraphs = new Map();
  for (const t of typeDefs) {
    const jt = named(t, 'join__type').map((d) => graphOf(argsOf(d).graph)).filter(Boolean);
    typeGraphs.set(t.name.value, jt.length ? new Set(jt) : new Set(enumNames));
  }

  // Per field: graph -> { external, requires, provides, type, override, overrideLabel, usedOverridden }.
  const fieldGraphs = (t, f) => {
    const jf = named(f, 'join__field');
    const out = new Map();
    if (jf.length === 0) {
      for (const g of typeGraphs.get(t.name.value)) out.set(g, {});
      return out;
    }
    for (const d of jf) {
      const a = argsOf(d);
      const g = graphOf(a.graph);
      if (!g) continue; // @join__field without a graph: in no subgraph
      if (a.contextArguments) dropped.add(`@join__field(contextArguments:) (on ${t.name.value}.${f.name.value}; @fromContext is not extracted)`);
      out.set(g, {
        external: bool(a.external) === true,
        requires: str(a.requires),
        provides: str(a.provides),
        type: str(a.type),
        override: str(a.override),
        overrideLabel: str(a.overrideLabel),
        usedOverridden: bool(a.usedOverridden) === true,
      });
    }
    return out;
  };

  // Fields provided (@provides) by some graph: "Type.field" -> graphs.
  const provided = new Map();
  for (const t of typeDefs) {
    if (t.kind !== Kind.OBJECT_TYPE_DEFINITION && t.kind !== Kind.INTERFACE_TYPE_DEFINITION) continue;
    for (const f of t.fields ?? []) {
      for (const [g, info] of fieldGraphs(t, f)) {
        if (!info.provides) continue;
        const paths = new Set();
        fieldSetPaths(namedTypeOf(f.type), info.provides, types, paths);
        for (const p of paths) {
          if (!provided.has(p)) provided.set(p, new Set());
          provided.get(p).add(g);
        }
      }
    }
  }

  const out = new Map(enumNames.map((g) => [g, { defs: [], imports: new Set(), version: 2.3 }]));
  const use = (g, name) => {
    const s = out.get(g);
    s.imports.add(`@${name}`);
    if (KEPT[name]) s.version = Math.max(s.version, KEPT[name]);
  };
  const noteKept = (g, dirs) => {
    for (const d of dirs) if (KEPT[d.name.value]) use(g, d.name.value);
  };

  for (const t of typeDefs) {
    const tname = t.name.value;
    const tGraphs = typeGraphs.get(tname);
    const isInterface = t.kind === Kind.INTERFACE_TYPE_DEFINITION;
    const typeKept = keep(t, tname, isInterface);
    const joinTypes = named(t, 'join__type').map(argsOf);
    for (const g of enumNames) {
      if (!tGraphs.has(g)) continue;
      const mine = joinTypes.filter((a) => graphOf(a.graph) === g);
      const interfaceObject = mine.some((a) => bool(a.isInterfaceObject) === true);
      const dirs = [];
      for (const a of mine) {
        const key = str(a.key);
        if (!key) continue;
        const args = { fields: strValue(key) };
        if (bool(a.resolvable) === false) args.resolvable = { kind: Kind.BOOLEAN, value: false };
        dirs.push(directive('key', args));
        use(g, 'key');
      }
      if (interfaceObject) {
        dirs.push(directive('interfaceObject'));
        use(g, 'interfaceObject');
      }
      dirs.push(...typeKept);
      noteKept(g, typeKept);
      let def;
      switch (t.kind) {
        case Kind.OBJECT_TYPE_DEFINITION:
        case Kind.INTERFACE_TYPE_DEFINITION: {
          const fields = [];
          for (const f of t.fields ?? []) {
            const fg = fieldGraphs(t, f);
            const info = fg.get(g);
            if (!info) continue;
            const fdirs = [];
            if (info.external) {
              fdirs.push(directive('external'));
              use(g, 'external');
            }
            if (info.requires) {
              fdirs.push(directive('requires', { fields: strValue(info.requires) }));
              use(g, 'requires');
            }
            if (info.provides) {
              fdirs.push(directive('provides', { fields: strValue(info.provides) }));
              use(g, 'provides');
            }
            if (info.override) {
              const oargs = { from: strValue(graphs.get(info.override) ?? info.override) };
              if (info.overrideLabel) {
                oargs.label = strValue(info.overrideLabel);
                out.get(g).version = Math.max(out.get(g).version, 2.7);
              }
              fdirs.push(directive('override', oargs));
              use(g, 'override');
            }
            // @shareable: an object-type field resolved by two or more subgraphs (not
            // counting an @external one unless it @provides it), never next to @override.
            const isObject = t.kind === Kind.OBJECT_TYPE_DEFINITION || interfaceObject;
            if (isObject && !info.external && !info.usedOverridden && ![...fg.values()].some((i) => i.override)) {
              const prov = provided.get(`${tname}.${f.name.value}`) ?? new Set();
              const resolvers = [...fg].filter(([gg, i]) => !i.usedOverridden && (!i.external || prov.has(gg)));
              if (resolvers.length >= 2) {
                fdirs.push(directive('shareable'));
                use(g, 'shareable');
              }
            }
            const fk = keep(f, `${tname}.${f.name.value}`, isInterface && !interfaceObject);
            fdirs.push(...fk);
            noteKept(g, fk);
            const args = (f.arguments ?? []).map((a) => {
              const ak = keep(a, `${tname}.${f.name.value}(${a.name.value}:)`);
              noteKept(g, ak);
              return { ...a, directives: ak };
            });
            fields.push({
              ...f,
              type: info.type ? parseType(info.type, { noLocation: true }) : f.type,
              arguments: args,
              directives: fdirs,
            });
          }
          if (fields.length === 0) continue; // e.g. a Query with no field of this subgraph
          const impl = named(t, 'join__implements').map(argsOf);
          const interfaces = impl.length
            ? impl.filter((a) => graphOf(a.graph) === g).map((a) => ({ kind: Kind.NAMED_TYPE, name: nameNode(str(a.interface)) }))
            : (t.interfaces ?? []).filter((i) => typeGraphs.get(i.name.value)?.has(g));
          def = {
            ...t,
            kind: interfaceObject ? Kind.OBJECT_TYPE_DEFINITION : t.kind,
            interfaces: interfaceObject ? [] : interfaces,
            directives: dirs,
            fields,
          };
          break;
        }
        case Kind.INPUT_OBJECT_TYPE_DEFINITION: {
          const fields = [];
          for (const f of t.fields ?? []) {
            const jf = named(f, 'join__field').map((d) => graphOf(argsOf(d).graph));
            if (jf.length && !jf.includes(g)) continue;
            const fk = keep(f, `${tname}.${f.name.value}`);
            noteKept(g, fk);
            fields.push({ ...f, directives: fk });
          }
          if (fields.length === 0) continue;
          def = { ...t, directives: dirs, fields };
          break;
        }
        case Kind.ENUM_TYPE_DEFINITION: {
          const values = [];
          for (const v of t.values ?? []) {
            const jv = named(v, 'join__enumValue').map((d) => graphOf(argsOf(d).graph));
            if (jv.length && !jv.includes(g)) continue;
            const vk = keep(v, `${tname}.${v.name.value}`);
            noteKept(g, vk);
            values.push({ ...v, directives: vk });
          }
          if (values.length === 0) continue;
          def = { ...t, directives: dirs, values };
          break;
        }
        case Kind.UNION_TYPE_DEFINITION: {
          const members = named(t, 'join__unionMember').map(argsOf);
          const types = members.length
            ? members.filter((a) => graphOf(a.graph) === g).map((a) => ({ kind: Kind.NAMED_TYPE, name: nameNode(str(a.member)) }))
            : (t.types ?? []).filter((m) => typeGraphs.get(m.name.value)?.has(g));
          if (types.length === 0) continue;
          def = { ...t, directives: dirs, types };
          break;
        }
        case Kind.SCALAR_TYPE_DEFINITION:
          def = { ...t, directives: dirs };
          break;
        default:
          continue;
      }
      out.get(g).defs.push(def);
    }
  }

  const subgraphs = [];
  for (const g of enumNames) {
    const s = out.get(g);
    const version = s.version.toFixed(1);
    const link = {
      kind: Kind.SCHEMA_EXTENSION,
      directives: [
        directive('link', {
          url: strValue(`https://specs.apollo.dev/federation/v${version}`),
          import: { kind: Kind.LIST, values: [...s.imports].sort().map((i) => strValue(i)) },
        }),
      ],
      operationTypes: [],
    };
    const sub = { kind: Kind.DOCUMENT, definitions: [link, ...s.defs] };
    // Drop locations so print() lays it out afresh.
    const clean = visit(sub, { enter: (node) => ({ ...node, loc: undefined }) });
    subgraphs.push({ name: graphs.get(g), sdl: print(clean) + '\n' });
  }
  return { subgraphs, dropped: [...dropped].sort() };
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  let sdl;
  try {
    sdl = readFileSync(opts.supergraph, 'utf8');
  } catch (err) {
    fail(`cannot read ${opts.supergraph}: ${err.message}`);
  }
  const res = extractSubgraphs(sdl);
  if (res.error) fail(`${opts.supergraph} ${res.error}`);
  const files = new Map();
  for (const s of res.subgraphs) {
    const stem = s.name.toLowerCase().replace(/[^a-z0-9_-]/g, '-');
    if (files.has(stem)) fail(`subgraphs "${files.get(stem).name}" and "${s.name}" would both be written to ${stem}.graphql`);
    files.set(stem, s);
  }
  const dir = resolve(opts.out);
  try {
    mkdirSync(dir, { recursive: true });
    for (const [stem, s] of files) {
      const file = join(dir, `${stem}.graphql`);
      writeFileSync(file + '.tmp', s.sdl);
      renameSync(file + '.tmp', file);
    }
  } catch (err) {
    fail(`cannot write ${dir}: ${err.message}`);
  }
  for (const d of res.dropped) console.error(`extract: note: left out ${d}`);
  const r = relative(process.cwd(), dir);
  console.log(`extract: wrote ${files.size} subgraph(s) to ${r && !r.startsWith('..') ? r : dir}:`);
  for (const [stem, s] of files) console.log(stem === s.name ? stem : `${stem} (${s.name})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
