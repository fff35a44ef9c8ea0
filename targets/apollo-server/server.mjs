// Apollo Server 5 behind Express 5 (the articles ran Apollo with Express; in v5 the Express
// integration moved out of @apollo/server into @as-integrations/express5).
//
// Apollo's defaults are kept on purpose, since they are what users run: the parsed and
// validated document cache (documentStore, on by default), CSRF prevention (our requests
// carry content-type: application/json, so they pass), and, with NODE_ENV=production, no
// introspection and the production landing page (GET only; irrelevant to POST throughput).
// Usage reporting stays off because no APOLLO_KEY is set. No drain plugin: shutdown closes
// connections itself (server-common) and a drain would only delay the stop.
//
// Added the way Apollo's docs show them:
// - depth limit: graphql-depth-limit in validationRules (DEPTH_LIMIT = 10);
// - subscriptions: Apollo Server has none of its own; its docs add graphql-ws on a `ws`
//   WebSocketServer sharing the HTTP server and path, with one executable schema
//   (@graphql-tools/schema) given to both, and a graphql-subscriptions PubSub;
// - GQLBENCH_RESOLVERS: PostgreSQL resolvers, DataLoaders per request via `context`;
// - GQLBENCH_RESPONSE_CACHE=1 (targets/apollo-server-cache): the full response cache plugin,
//   with a default cache hint of GQLBENCH_CACHE_TTL_MS (without a hint nothing is cached).

import http from 'node:http';
import { EventEmitter } from 'node:events';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { makeExecutableSchema } from '@graphql-tools/schema';
import express from 'express';
import { specifiedRules, validate } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { PubSub } from 'graphql-subscriptions';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { typeDefs, DEPTH_LIMIT } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { TICKS_TOPIC, closeWebSockets, tickerFromEnv } from '../_node/subscriptions.mjs';
import { GRAPHQL_PATH, batchingFromEnv, serveHttp } from '../_node/server-common.mjs';
import { responseCacheFromEnv } from '../_node/response-cache.mjs';

const ticker = tickerFromEnv('apollo-server');
const data = await dataSourceFromEnv({
  name: 'apollo-server',
  load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
});

// Node's EventEmitter warns past 10 listeners, and every subscriber is one listener here.
const events = new EventEmitter();
events.setMaxListeners(0);
const pubsub = new PubSub({ eventEmitter: events });

const schema = makeExecutableSchema({
  typeDefs,
  resolvers: [data.resolvers, { Subscription: { ticks: { subscribe: () => pubsub.asyncIterableIterator(TICKS_TOPIC) } } }],
});
const depthRule = depthLimit(DEPTH_LIMIT);

const cache = responseCacheFromEnv('apollo-server');
const plugins = [];
if (cache) {
  const { default: responseCachePlugin } = await import('@apollo/server-plugin-response-cache');
  const { ApolloServerPluginCacheControl } = await import('@apollo/server/plugin/cacheControl');
  plugins.push(ApolloServerPluginCacheControl({ defaultMaxAge: cache.ttlMs / 1000 }), responseCachePlugin());
}

const apollo = new ApolloServer({
  schema,
  validationRules: [depthRule],
  plugins,
  // Off unless a batching scenario asks (Apollo Server's default; it has no size limit).
  allowBatchedHttpRequests: batchingFromEnv() > 0,
});
await apollo.start();

const app = express();
// express.json() is required: the integration reads req.body and refuses to run without it.
app.use(
  GRAPHQL_PATH,
  express.json(),
  expressMiddleware(apollo, data.makeContext ? { context: async () => data.makeContext() } : undefined),
);

const server = http.createServer(app);
const wss = new WebSocketServer({ server, path: GRAPHQL_PATH });
// graphql-ws executes any operation, so the same depth limit applies on this path too;
// otherwise a deep query could bypass it over the socket.
useServer(
  {
    schema,
    validate: (s, document) => validate(s, document, [...specifiedRules, depthRule]),
    ...(data.makeContext ? { context: () => data.makeContext() } : {}),
  },
  wss,
);

ticker.start((tick) => pubsub.publish(TICKS_TOPIC, { ticks: tick }));

serveHttp('apollo-server', server, {
  alsoClose: () => {
    ticker.stop();
    return Promise.all([closeWebSockets(wss.clients), data.close()]);
  },
});
