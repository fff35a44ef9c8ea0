// @benzene/http 0.4 (hoangvvo/benzene, the successor of graphyne-server by the same author)
// on node:http, as its README serves it: the body read and parsed with parseGraphQLBody,
// the framework-agnostic handler's status, headers and payload written back. Benzene as
// shipped: each distinct (query, operationName) parsed, validated and "compiled" once
// (graphql-js execute by default; graphql-jit is an option it leaves to the user) and kept
// in an LRU of 1024.
//
// The depth limit is graphql-depth-limit (DEPTH_LIMIT = 10) beside graphql-js' specified
// rules (Benzene's `validationRules` replaces them, as graphql-js' validate() does).
// GQLBENCH_RESOLVERS switches to the PostgreSQL resolvers (DataLoaders per request in
// Benzene's contextFn).
import http from 'node:http';
import { Benzene, makeHandler, parseGraphQLBody } from '@benzene/http';
import { buildSchema, specifiedRules } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { typeDefs, attachResolvers, DEPTH_LIMIT } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { GRAPHQL_PATH, readBody, sendError, sendJson, serveHttp } from '../_node/server-common.mjs';

const data = await dataSourceFromEnv({
  name: 'benzene',
  load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
});
const GQL = new Benzene({
  schema: attachResolvers(buildSchema(typeDefs), data.resolvers),
  validationRules: [...specifiedRules, depthLimit(DEPTH_LIMIT)],
  contextFn: () => (data.makeContext ? data.makeContext() : {}),
});
const graphqlHTTP = makeHandler(GQL);

serveHttp('benzene', http.createServer(async (req, res) => {
  if (req.url.split('?', 1)[0] !== GRAPHQL_PATH) return sendError(res, 404, 'not found');
  let body;
  try {
    body = parseGraphQLBody(await readBody(req), req.headers['content-type']);
  } catch (err) {
    return sendError(res, err.status || 400, err.message);
  }
  const result = await graphqlHTTP({ method: req.method, headers: req.headers, body });
  res.writeHead(result.status, result.headers);
  res.end(JSON.stringify(result.payload));
}), { alsoClose: data.close });
