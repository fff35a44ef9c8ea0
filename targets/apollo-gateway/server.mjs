// Apollo Gateway (@apollo/gateway, JS query planner) inside Apollo Server 5, served on bare
// node:http through Apollo Server's integration API (executeHTTPGraphQLRequest), the same
// call its standalone server makes, so that SIGTERM can close every connection at once.
//
// Supergraph: the file in $GQLBENCH_SUPERGRAPH (`supergraphSdl`), no polling, no Apollo
// Studio (managed federation, usage and schema reporting explicitly off). Landing page off.
// Kept at defaults: the gateway's query-plan cache (in-memory LRU, 30 MiB), Apollo Server's
// parsed/validated document store, no batching (allowBatchedHttpRequests false), no
// response cache (none is installed), CSRF prevention (we send application/json). Apollo
// Gateway does not deduplicate identical in-flight subgraph requests.

import http from 'node:http';
import { ApolloServer, HeaderMap } from '@apollo/server';
import {
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginUsageReportingDisabled,
  ApolloServerPluginSchemaReportingDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloGateway } from '@apollo/gateway';
import { HOST, PORT, GRAPHQL_PATH, batchingFromEnv, readBody, sendError, logReady, onShutdown, closeHttpServer } from '../_node/server-common.mjs';
import { readSupergraph } from '../_federation/gateway-common.mjs';

// Only warnings and errors (no per-request lines).
const quiet = { debug() {}, info() {}, warn: console.warn, error: console.error };

const gateway = new ApolloGateway({ supergraphSdl: readSupergraph(), logger: quiet });
const server = new ApolloServer({
  gateway,
  logger: quiet,
  // Off unless a batching scenario asks (the default).
  allowBatchedHttpRequests: batchingFromEnv() > 0,
  plugins: [
    ApolloServerPluginLandingPageDisabled(),
    ApolloServerPluginUsageReportingDisabled(),
    ApolloServerPluginSchemaReportingDisabled(),
  ],
});
await server.start();

const httpServer = http.createServer(async (req, res) => {
  const url = req.url || '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path !== GRAPHQL_PATH) return sendError(res, 404, `not found; POST ${GRAPHQL_PATH}`);
  try {
    const headers = new HeaderMap();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    let body;
    if (req.method === 'POST') {
      const raw = await readBody(req);
      try {
        body = raw.length ? JSON.parse(raw) : {};
      } catch {
        return sendError(res, 400, 'request body is not JSON');
      }
    }
    const result = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: q === -1 ? '' : url.slice(q), body },
      context: async () => ({}),
    });
    const out = {};
    for (const [k, v] of result.headers) out[k] = v;
    if (result.body.kind === 'complete') {
      out['content-length'] = Buffer.byteLength(result.body.string);
      res.writeHead(result.status || 200, out);
      res.end(result.body.string);
    } else {
      // Incremental delivery (@defer): not used by the benchmark, streamed as given.
      res.writeHead(result.status || 200, out);
      for await (const chunk of result.body.asyncIterator) res.write(chunk);
      res.end();
    }
  } catch (err) {
    sendError(res, err.status || 500, err.message || 'internal error');
  }
});
httpServer.on('error', (err) => {
  console.error('apollo-gateway: server error:', err);
  process.exit(1);
});
httpServer.listen(PORT, HOST, () => logReady('apollo-gateway', httpServer.address().port));
onShutdown('apollo-gateway', async () => {
  await closeHttpServer(httpServer);
  await server.stop();
});
