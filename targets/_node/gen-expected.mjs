// Generates scenarios/expected/<op>.json for every document scenarios/queries/<op>.graphql,
// by executing it with graphql-js against the shared schema (index.mjs), and generates the
// variable cases of the `-var` operations deterministically.
//
// Usage (graphql is not installed in targets/_node, so it is loaded from a target's
// node_modules: the directory given by --graphql-from, else the current directory, else the
// first sibling target that has it installed):
//   cd targets/graphql-jit && node ../_node/gen-expected.mjs          # (re)write the files
//   node targets/_node/gen-expected.mjs --check                       # exit 1 if any differs
//   node targets/_node/gen-expected.mjs --graphql-from targets/node-baseline
//
// Expected file format (what the Rust side reads): a JSON array of cases
//   [{ "variables": { ... } | null, "data": { ... } }, ...]
// The benchmark rotates through the cases per request and compares `data` as canonical JSON.
//
// Skipped (no file written; see notGenerated in operations.mjs): documents outside the
// Node workloads (federation/, subscriptions/) and documents marked `# gqlbench: rejected`
// (they must be refused by the servers' depth limit; --check fails if one has a file).

import { readFileSync, writeFileSync, mkdirSync, readdirSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { typeDefs, attachResolvers } from './index.mjs';
import { users } from './social.mjs';
import { canonicalJson } from './canonical.mjs';
import { listOperations, notGenerated } from './operations.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const queriesDir = join(repo, 'scenarios', 'queries');
const expectedDir = join(repo, 'scenarios', 'expected');

// Variables per operation; operations not listed have a single case with null variables.
// Ids alternate between the "bench-user-N" and plain "N" forms (both must resolve to the
// same user) and are spread over the id range by a fixed stride, so they are reproducible.
const userId = (k, n) => (k % 2 === 0 ? `bench-user-${n}` : String(n));
// The response-cache scenarios: ten users' pages, sent over and over (hits) and, with a
// `limit` made unique per request (UNIQUE_VARIABLES), as pages never asked for before.
const cachePages = Array.from({ length: 10 }, (_, k) => ({ id: `bench-user-${(k * 997 + 31) % 10_000}`, limit: 10 }));
// The staleness check's user: renamed by the write's first case, given back its name by
// the second.
const STALE_USER = 7;
export const VARIABLE_CASES = {
  'social/simple-var': Array.from({ length: 50 }, (_, k) => ({ id: userId(k, (k * 7_919 + 123) % 10_000) })),
  'social/medium-var': Array.from({ length: 20 }, (_, k) => ({ id: userId(k, (k * 4_999 + 77) % 10_000) })),
  'social/cache-user': cachePages,
  'social/cache-user-unique': cachePages,
  'social/user-name': [{ id: `bench-user-${STALE_USER}` }, { id: `bench-user-${STALE_USER}` }],
  'social/rename-user': [
    { id: `bench-user-${STALE_USER}`, name: 'Renamed By The Staleness Check' },
    { id: `bench-user-${STALE_USER}`, name: users[STALE_USER].name },
  ],
};

// Variables a load makes unique per request, counting up from the case's value (the
// answer must not depend on them): written as the case's "unique".
const UNIQUE_VARIABLES = { 'social/cache-user-unique': 'limit' };

// Operations whose cases are answered in turn with a write between them: `read`'s case k
// is its answer after `write`'s cases before k ran (its first: before any write). Both
// files come from the one sequence; the last write undoes the first, so other answers
// are computed on unchanged data.
const SEQUENCES = [{ read: 'social/user-name', write: 'social/rename-user' }];

// `@defer` and `@stream`, with their arguments, taken out of a document.
export function withoutIncremental(source) {
  return source.replace(/@(defer|stream)\b(\s*\([^)]*\))?/g, '');
}

function loadGraphql(args) {
  const i = args.indexOf('--graphql-from');
  const candidates = [];
  if (i >= 0) candidates.push(resolve(args[i + 1] ?? '.'));
  candidates.push(process.cwd());
  for (const d of readdirSync(join(repo, 'targets'))) candidates.push(join(repo, 'targets', d));
  for (const dir of candidates) {
    try {
      const require = createRequire(join(dir, 'package.json'));
      return { graphql: require('graphql'), from: dir };
    } catch {
      // not installed there; try the next one
    }
  }
  throw new Error('graphql not found: run `npm ci` in a target folder (e.g. targets/graphql-jit) or pass --graphql-from <dir>');
}

async function answer(graphql, schema, op, variables) {
  // A deferred or streamed query's expected answer is the same query's without the
  // directives (graphql 16 has neither): gqlbench judges the merged parts against it.
  const source = withoutIncremental(readFileSync(join(queriesDir, `${op}.graphql`), 'utf8'));
  const result = await graphql.graphql({ schema, source, variableValues: variables ?? undefined });
  if (result.errors) throw new Error(`${op} ${JSON.stringify(variables)}: ${result.errors.map((e) => e.message).join('; ')}`);
  const unique = UNIQUE_VARIABLES[op];
  return { variables, ...(unique ? { unique } : {}), data: result.data };
}

// graphql-js returns null-prototype objects; round-trip to plain JSON for stable output.
const plain = (cases) => JSON.parse(JSON.stringify(cases));

async function generate(graphql, schema, op) {
  const cases = [];
  for (const variables of VARIABLE_CASES[op] ?? [null]) cases.push(await answer(graphql, schema, op, variables));
  return plain(cases);
}

// The read's and the write's cases of a sequence, in the order they must run.
async function generateSequence(graphql, schema, { read, write }) {
  const reads = VARIABLE_CASES[read];
  const writes = VARIABLE_CASES[write];
  const out = { [read]: [], [write]: [] };
  for (let k = 0; k < reads.length; k++) {
    out[read].push(await answer(graphql, schema, read, reads[k]));
    if (k < writes.length) out[write].push(await answer(graphql, schema, write, writes[k]));
  }
  for (let k = reads.length; k < writes.length; k++) out[write].push(await answer(graphql, schema, write, writes[k]));
  return { [read]: plain(out[read]), [write]: plain(out[write]) };
}

async function main() {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const { graphql, from } = loadGraphql(args);
  const schema = attachResolvers(graphql.buildSchema(typeDefs));
  const ops = listOperations(queriesDir);
  for (const op of Object.keys(VARIABLE_CASES)) if (!ops.includes(op)) throw new Error(`variables for unknown operation ${op}`);
  console.error(`graphql ${graphql.version} from ${relative(repo, from) || '.'}; ${ops.length} operations`);
  const sequenced = {};
  for (const seq of SEQUENCES) Object.assign(sequenced, await generateSequence(graphql, schema, seq));
  let stale = 0;
  for (const op of ops) {
    const file = join(expectedDir, `${op}.json`);
    const skip = notGenerated(queriesDir, op);
    if (skip) {
      // A rejected document with an answer file would be benchmarked as a valid operation.
      const forbidden = skip.rejected && existsSync(file);
      if (forbidden) stale++;
      console.log(`${forbidden ? 'DIFF ' : 'skip '} ${op}: ${skip.why}${forbidden ? `, but ${relative(repo, file)} exists: delete it` : ''}`);
      continue;
    }
    const cases = sequenced[op] ?? (await generate(graphql, schema, op));
    const text = `${JSON.stringify(cases, null, 2)}\n`;
    if (check) {
      const same = existsSync(file) && canonicalJson(JSON.parse(readFileSync(file, 'utf8'))) === canonicalJson(cases);
      if (!same) stale++;
      console.log(`${same ? 'ok   ' : 'DIFF '} ${op} (${cases.length} case${cases.length === 1 ? '' : 's'})`);
    } else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      console.log(`wrote ${relative(repo, file)} (${cases.length} case${cases.length === 1 ? '' : 's'}, ${text.length} bytes)`);
    }
  }
  if (check && stale > 0) {
    console.error(`${stale} expected file(s) missing or out of date: run gen-expected.mjs without --check`);
    process.exit(1);
  }
}

await main();
