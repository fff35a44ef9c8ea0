// Fastify 5 + Mercurius with graphql-jit enabled (jit: 1 = compile a query after its first
// execution), as in the Mercurius article. Fastify's logger is off (per-request logging would
// dominate). Mercurius' defaults stay otherwise: its LRU cache of parsed/validated (and
// compiled) documents, GraphiQL off unless asked for, path /graphql.

import Fastify from 'fastify';
import mercurius from 'mercurius';
import { typeDefs, resolvers } from '../_node/index.mjs';
import { HOST, PORT, GRAPHQL_PATH, logReady, onShutdown } from '../_node/server-common.mjs';

const app = Fastify({ logger: false, forceCloseConnections: true });
app.register(mercurius, {
  schema: typeDefs,
  resolvers,
  path: GRAPHQL_PATH,
  graphiql: false,
  jit: 1,
});

try {
  await app.listen({ port: PORT, host: HOST });
} catch (err) {
  console.error('mercurius: failed to listen:', err);
  process.exit(1);
}
logReady('mercurius', app.server.address().port);
onShutdown('mercurius', () => app.close());
