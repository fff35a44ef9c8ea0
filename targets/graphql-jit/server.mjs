// graphql-jit on plain node:http: the "core-graphql-jit-str" entry of node-graphql-benchmarks.
// No framework: parse the JSON body, compile each distinct (query, operationName) once,
// run the compiled function, serialise with the compiled fast-json-stringify serializer.
//
// graphql-jit does not validate documents, so a document is validated with graphql-js once,
// before compiling it (a server that skipped validation would not be comparable). Compiled
// queries are cached by query text: that cache is both the parse/validate cache and the JIT.
//
// The depth limit is graphql-depth-limit (DEPTH_LIMIT = 10) added to the validation rules,
// the usual way for a server that calls graphql-js validate() itself. GQLBENCH_RESOLVERS
// switches to the PostgreSQL resolvers (DataLoaders per request in the contextValue).

import { createServer } from 'node:http';
import { buildSchema, parse, validate, specifiedRules, GraphQLError } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import depthLimit from 'graphql-depth-limit';
import { typeDefs, attachResolvers, DEPTH_LIMIT } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { GRAPHQL_PATH, serveHttp, readBody, sendJson, sendError } from '../_node/server-common.mjs';

const data = await dataSourceFromEnv({
  name: 'graphql-jit',
  load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
});
const schema = attachResolvers(buildSchema(typeDefs), data.resolvers);
const rules = [...specifiedRules, depthLimit(DEPTH_LIMIT)];

// Bounded so that a stream of distinct documents cannot grow memory without limit; the
// benchmark uses a handful of documents, so it never evicts during a run.
const MAX_CACHED = 1000;
const cache = new Map();

function compile(query, operationName) {
  const key = operationName ? `${operationName}\u0000${query}` : query;
  let entry = cache.get(key);
  if (entry) return entry;
  let document;
  try {
    document = parse(query);
  } catch (err) {
    return { errors: [err instanceof GraphQLError ? err : new GraphQLError(String(err))] };
  }
  const errors = validate(schema, document, rules);
  if (errors.length > 0) return { errors };
  entry = compileQuery(schema, document, operationName || undefined, { customJSONSerializer: true });
  if (!isCompiledQuery(entry)) return entry; // e.g. unknown operationName: not cached
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, entry);
  return entry;
}

async function handle(req, res) {
  const path = req.url.split('?', 1)[0];
  if (path !== GRAPHQL_PATH) return sendError(res, 404, 'not found');
  if (req.method !== 'POST') return sendError(res, 405, 'only POST is supported');
  let body;
  try {
    body = JSON.parse(await readBody(req));
  } catch (err) {
    return sendError(res, err.status || 400, err.status ? err.message : 'body is not valid JSON');
  }
  if (!body || typeof body.query !== 'string') return sendError(res, 400, 'missing "query"');
  const compiled = compile(body.query, body.operationName);
  if (!isCompiledQuery(compiled)) return sendJson(res, 200, JSON.stringify(compiled));
  let result = compiled.query(undefined, data.makeContext ? data.makeContext() : {}, body.variables ?? undefined);
  if (typeof result?.then === 'function') result = await result;
  // The compiled serializer only knows the shape of `data`; responses with errors go
  // through JSON.stringify to be safe.
  sendJson(res, 200, result.errors ? JSON.stringify(result) : compiled.stringify(result));
}

serveHttp('graphql-jit', createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error('graphql-jit: request failed:', err);
    if (!res.headersSent) sendError(res, 500, 'internal error');
    else res.destroy();
  });
}), { alsoClose: data.close });
