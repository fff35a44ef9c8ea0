// Checks a running GraphQL server against the committed expected answers: for every
// operation (or those named) and every case, POST {query, variables} as JSON and compare
// `data` with the expected `data` as canonical JSON; any `errors`, non-200 status or
// non-JSON body is a failure. Starts nothing (start the target yourself), needs no packages.
//
//   node targets/_node/verify-targets.mjs http://127.0.0.1:4000/graphql [social/simple ...]
//
// Exit code 0 when everything matches, 1 otherwise. (gqlbench's own `check` does the same
// in Rust; this is the quick tool for target authors.)

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from './canonical.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const queriesDir = join(repo, 'scenarios', 'queries');
const expectedDir = join(repo, 'scenarios', 'expected');

function listOperations(dir, prefix = '') {
  const ops = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory()) ops.push(...listOperations(join(dir, entry.name), `${prefix}${entry.name}/`));
    else if (entry.name.endsWith('.graphql')) ops.push(prefix + entry.name.slice(0, -'.graphql'.length));
  }
  return ops;
}

async function verifyOperation(url, op) {
  const query = readFileSync(join(queriesDir, `${op}.graphql`), 'utf8');
  const cases = JSON.parse(readFileSync(join(expectedDir, `${op}.json`), 'utf8'));
  let ok = 0;
  let bytes = 0;
  const failures = [];
  for (const [i, c] of cases.entries()) {
    const body = JSON.stringify(c.variables == null ? { query } : { query, variables: c.variables });
    let problem = null;
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
      const text = await res.text();
      bytes = Math.max(bytes, Buffer.byteLength(text));
      let json;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (res.status !== 200) problem = `HTTP ${res.status}: ${text.slice(0, 200)}`;
      else if (json === undefined) problem = `body is not JSON: ${text.slice(0, 200)}`;
      else if (json.errors) problem = `errors: ${JSON.stringify(json.errors).slice(0, 300)}`;
      else if (canonicalJson(json.data) !== canonicalJson(c.data)) problem = `wrong data: ${canonicalJson(json.data).slice(0, 200)}`;
    } catch (err) {
      problem = `request failed: ${err.cause?.code ?? err.message}`;
    }
    if (problem) failures.push(`case ${i} ${JSON.stringify(c.variables)}: ${problem}`);
    else ok++;
  }
  return { ok, total: cases.length, bytes, failures };
}

const [url, ...only] = process.argv.slice(2);
if (!url) {
  console.error('usage: node verify-targets.mjs <url> [operation ...]');
  process.exit(2);
}
const ops = only.length > 0 ? only : listOperations(queriesDir);
let failed = 0;
for (const op of ops) {
  const r = await verifyOperation(url, op);
  const status = r.failures.length === 0 ? 'ok  ' : 'FAIL';
  console.log(`${status} ${op.padEnd(20)} ${String(r.ok).padStart(3)}/${String(r.total).padEnd(3)} cases  max response ${r.bytes} B`);
  for (const f of r.failures.slice(0, 3)) console.log(`       ${f}`);
  if (r.failures.length > 3) console.log(`       ... ${r.failures.length - 3} more`);
  if (r.failures.length > 0) failed++;
}
console.log(failed === 0 ? `all ${ops.length} operations match (${url})` : `${failed} of ${ops.length} operations FAILED (${url})`);
process.exit(failed === 0 ? 0 : 1);
