// The ceiling of any Node GraphQL server on this machine: plain node:http answering each
// POST /graphql from a Map keyed by the raw request body. The first time a body is seen it
// is executed with graphql-js `graphql()` against the shared schema and the serialised
// answer is stored; every later identical body costs only reading it and one Map lookup.
// Answers stay correct for any operation and variables (the key is the whole body), but
// resolver work, e.g. the authors' per-request md5, is NOT redone: a cache by design
// (target.toml says response_cache = true), never to be ranked as a GraphQL server.
//
// With GQLBENCH_RESOLVERS set (the PostgreSQL workload) the answer cache is OFF: replaying
// stored bytes would never reach the database, and the row would measure a Map lookup
// instead of the data source. Every request then runs graphql() against the database, and
// the baseline is "graphql-js with no framework" for that workload.
//
// GQLBENCH_WORK=N adds a fixed amount of CPU work to every request: N rounds of a
// xorshift step (about 1 ns each once compiled), the same on every request. It makes the
// reference server of `gqlbench calibrate --sensitivity`, whose cost per request is known
// and can be raised by a chosen share (+5%, +10%) to see what a comparison detects.
//
// No depth limit on purpose: the baseline is the control that shows what a server without
// one does with scenarios/queries/social/deep-11.graphql (it answers it).

import { createServer } from 'node:http';
import { buildSchema, graphql } from 'graphql';
import { typeDefs, attachResolvers } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { work, workRounds } from '../_node/work.mjs';
import { GRAPHQL_PATH, serveHttp, readBody, sendJson, sendError } from '../_node/server-common.mjs';

const data = await dataSourceFromEnv({
  name: 'node-baseline',
  load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
});
const schema = attachResolvers(buildSchema(typeDefs), data.resolvers);
const cacheAnswers = data.mode === 'memory';
const WORK = workRounds('GQLBENCH_WORK');

// Bounded for hygiene; benchmark operations have at most a few dozen distinct bodies.
const MAX_CACHED = 10_000;
const answers = new Map();

async function execute(raw) {
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return { status: 400, bytes: Buffer.from(JSON.stringify({ errors: [{ message: 'body is not valid JSON' }] })), cacheable: false };
  }
  if (!body || typeof body.query !== 'string') {
    return { status: 400, bytes: Buffer.from(JSON.stringify({ errors: [{ message: 'missing "query"' }] })), cacheable: false };
  }
  const result = await graphql({
    schema,
    source: body.query,
    variableValues: body.variables ?? undefined,
    operationName: body.operationName ?? undefined,
    contextValue: data.makeContext?.(),
  });
  // Answers with errors are not stored: only correct, complete answers are replayed.
  return { status: 200, bytes: Buffer.from(JSON.stringify(result)), cacheable: cacheAnswers && !result.errors };
}

async function handle(req, res) {
  const path = req.url.split('?', 1)[0];
  if (path !== GRAPHQL_PATH) return sendError(res, 404, 'not found');
  if (req.method !== 'POST') return sendError(res, 405, 'only POST is supported');
  let raw;
  try {
    raw = await readBody(req);
  } catch (err) {
    return sendError(res, err.status || 400, err.message);
  }
  if (WORK > 0) work(WORK);
  let hit = cacheAnswers ? answers.get(raw) : undefined;
  if (!hit) {
    hit = await execute(raw);
    if (hit.cacheable) {
      if (answers.size >= MAX_CACHED) answers.clear();
      answers.set(raw, hit);
    }
  }
  sendJson(res, hit.status, hit.bytes);
}

serveHttp('node-baseline', createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error('node-baseline: request failed:', err);
    if (!res.headersSent) sendError(res, 500, 'internal error');
    else res.destroy();
  });
}), { alsoClose: data.close });
