// Checks a running GraphQL server against the committed expected answers: for every
// operation of the Node workloads (or those named) and every case, POST {query, variables}
// as JSON and compare `data` with the expected `data` as canonical JSON; any `errors`,
// non-200 status or non-JSON body is a failure. A document marked `# gqlbench: rejected`
// must instead be refused: a JSON body with non-empty `errors` and no `data` (any status).
// Starts nothing (start the target yourself), needs no packages.
//
//   node targets/_node/verify-targets.mjs http://127.0.0.1:4000/graphql [social/simple ...]
//
// Exit code 0 when everything matches, 1 otherwise. (gqlbench's own `check` does the same
// in Rust; this is the quick tool for target authors.)

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from './canonical.mjs';
import { WORKLOADS } from './index.mjs';
import { isRejected, listOperations } from './operations.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');
const queriesDir = join(repo, 'scenarios', 'queries');
const expectedDir = join(repo, 'scenarios', 'expected');

async function post(url, body) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

async function verifyRejected(url, query) {
  let problem = null;
  let note = '';
  let bytes = 0;
  try {
    const { status, text, json } = await post(url, JSON.stringify({ query }));
    bytes = Buffer.byteLength(text);
    if (json === undefined) problem = `HTTP ${status}, body is not JSON: ${text.slice(0, 200)}`;
    else if (!Array.isArray(json.errors) || json.errors.length === 0) problem = `HTTP ${status}: answered without errors (no depth limit?)`;
    else if (json.data !== undefined && json.data !== null) problem = `HTTP ${status}: errors but also data`;
    else note = `rejected, HTTP ${status}: ${json.errors[0]?.message}`;
  } catch (err) {
    problem = `request failed: ${err.cause?.code ?? err.message}`;
  }
  return { ok: problem ? 0 : 1, total: 1, bytes, failures: problem ? [problem] : [], note };
}

async function verifyOperation(url, op) {
  const query = readFileSync(join(queriesDir, `${op}.graphql`), 'utf8');
  if (isRejected(query)) return verifyRejected(url, query);
  const cases = JSON.parse(readFileSync(join(expectedDir, `${op}.json`), 'utf8'));
  let ok = 0;
  let bytes = 0;
  const failures = [];
  for (const [i, c] of cases.entries()) {
    const body = JSON.stringify(c.variables == null ? { query } : { query, variables: c.variables });
    let problem = null;
    try {
      const res = await post(url, body);
      const { text, json } = res;
      bytes = Math.max(bytes, Buffer.byteLength(text));
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
// By default the operations every Node server target answers (not federation/, which is for
// gateways, nor subscriptions/, which are not POST requests).
const ops = only.length > 0 ? only : listOperations(queriesDir).filter((op) => WORKLOADS.includes(op.split('/')[0]));
let failed = 0;
for (const op of ops) {
  const r = await verifyOperation(url, op);
  const status = r.failures.length === 0 ? 'ok  ' : 'FAIL';
  console.log(`${status} ${op.padEnd(20)} ${String(r.ok).padStart(3)}/${String(r.total).padEnd(3)} cases  max response ${r.bytes} B${r.note ? `  ${r.note}` : ''}`);
  for (const f of r.failures.slice(0, 3)) console.log(`       ${f}`);
  if (r.failures.length > 3) console.log(`       ... ${r.failures.length - 3} more`);
  if (r.failures.length > 0) failed++;
}
console.log(failed === 0 ? `all ${ops.length} operations match (${url})` : `${failed} of ${ops.length} operations FAILED (${url})`);
process.exit(failed === 0 ? 0 : 1);
