// Fastify 5 + Mercurius with graphql-jit enabled (jit: 1 = compile a query after its first
// execution), as in the Mercurius article. Fastify's logger is off (per-request logging would
// dominate). Mercurius' defaults stay otherwise: its LRU cache of parsed/validated (and
// compiled) documents, GraphiQL off unless asked for, path /graphql.
//
// Added with Mercurius' own options:
// - depth limit: queryDepth (DEPTH_LIMIT = 10; Mercurius applies it to subscriptions too);
// - subscriptions: `subscription: true`, its built-in WebSocket transport (@fastify/websocket
//   on the same path; accepts the graphql-transport-ws and legacy graphql-ws subprotocols)
//   with its built-in pubsub (app.graphql.pubsub). @fastify/websocket is registered here
//   first, as Mercurius' docs allow, only to give it a preClose that ends sockets promptly;
//   Mercurius then uses that instance instead of registering its own;
// - GQLBENCH_RESOLVERS: PostgreSQL resolvers, DataLoaders per request via `context`.

import Fastify from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import mercurius from 'mercurius';
import { typeDefs, mergeResolvers, DEPTH_LIMIT } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { TICKS_TOPIC, closeWebSockets, tickerFromEnv } from '../_node/subscriptions.mjs';
import {
  GRAPHQL_PATH,
  apqFromEnv,
  batchingFromEnv,
  documentIdOf,
  persistedDocumentsFromEnv,
  serveFastify,
} from '../_node/server-common.mjs';

const ticker = tickerFromEnv('mercurius');
const data = await dataSourceFromEnv({
  name: 'mercurius',
  load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
});

const documents = persistedDocumentsFromEnv();

const app = Fastify({ logger: false, forceCloseConnections: true });
app.register(fastifyWebsocket, {
  // The value Mercurius sets when it registers the plugin itself.
  options: { maxPayload: 1048576 },
  // The default preClose only sends a close frame (no code), and forceCloseConnections does
  // not reach upgraded sockets, so a peer that never answers would hold app.close() for
  // ws's 30 s closing timeout: close with 1001 and terminate whoever does not answer.
  preClose: async function preClose() {
    await closeWebSockets(this.websocketServer.clients);
    await new Promise((resolve) => this.websocketServer.close(() => resolve()));
  },
});
app.register(mercurius, {
  schema: typeDefs,
  resolvers: mergeResolvers(data.resolvers, {
    Subscription: { ticks: { subscribe: (_root, _args, { pubsub }) => pubsub.subscribe(TICKS_TOPIC) } },
  }),
  path: GRAPHQL_PATH,
  graphiql: false,
  // GQLBENCH_MERCURIUS_JIT=0 is the mercurius-nojit variant (Mercurius' default, jit: 0).
  jit: process.env.GQLBENCH_MERCURIUS_JIT === '0' ? 0 : 1,
  queryDepth: DEPTH_LIMIT,
  subscription: true,
  // Off unless a batching scenario asks (Mercurius' default; no size limit).
  allowBatchedQueries: batchingFromEnv() > 0,
  // Automatic persisted queries only when a scenario asks (off by default): Mercurius' own
  // provider, an LRU of 1024 documents.
  ...(apqFromEnv() ? { persistedQueryProvider: mercurius.persistedQueryDefaults.automatic() } : {}),
  // Persisted documents by id only when a scenario asks: Mercurius' provider interface, its
  // prepared documents from gqlbench's manifest, the id read from `documentId` (its
  // built-in `prepared` provider reads a hash from `query`). Other queries still run.
  ...(documents
    ? {
        persistedQueryProvider: {
          isPersistedQuery: (body) => documentIdOf(body) !== null,
          getHash: documentIdOf,
          getQueryFromHash: async (id) => documents.get(id),
        },
      }
    : {}),
  ...(data.makeContext ? { context: () => data.makeContext() } : {}),
});

await serveFastify('mercurius', app, {
  alsoClose: () => {
    ticker.stop();
    return data.close();
  },
});
ticker.start((tick) => app.graphql.pubsub.publish({ topic: TICKS_TOPIC, payload: { ticks: tick } }));
