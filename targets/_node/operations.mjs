// The operations under scenarios/queries and which of them have generated answers, shared by
// gen-expected.mjs and verify-targets.mjs.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKLOADS } from './index.mjs';

// Every `<dir>/<name>` with a document `<dir>/<name>.graphql`, sorted.
export function listOperations(dir, prefix = '') {
  const ops = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory()) ops.push(...listOperations(join(dir, entry.name), `${prefix}${entry.name}/`));
    else if (entry.name.endsWith('.graphql')) ops.push(prefix + entry.name.slice(0, -'.graphql'.length));
  }
  return ops;
}

// A document whose first lines include `# gqlbench: rejected` must be refused by a server
// (e.g. social/deep-11, one level above the depth limit).
const REJECTED_MARKER = /^#\s*gqlbench:\s*rejected\b/m;
export const isRejected = (source) => REJECTED_MARKER.test(source);

// Why an operation gets no answer from gen-expected.mjs: { why, rejected }, or null when it
// gets one.
// - Only the Node workloads' folders are answered from the shared schema: federation/ has
//   answers computed by `gqlbench-subgraphs expected` from the subgraphs' own data, and
//   subscriptions/ documents are event streams with no single answer.
// - A document marked rejected gets NO expected file: graphql-js here enforces no depth
//   limit and would answer it, and an expected answer would tell the benchmark that a server
//   answering it was right.
export function notGenerated(queriesDir, op) {
  const dir = op.split('/')[0];
  if (!WORKLOADS.includes(dir)) return { why: `not a Node workload (${dir}/): answers are not computed from the shared schema`, rejected: false };
  if (isRejected(readFileSync(join(queriesDir, `${op}.graphql`), 'utf8'))) return { why: 'marked "# gqlbench: rejected": must be refused, so it has no answer', rejected: true };
  return null;
}
