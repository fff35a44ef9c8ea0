// GraphQL Yoga 5 on node:http (Yoga's request handler is a node:http listener).
//
// Only GraphiQL (the default landing page for GET) is turned off; everything else is Yoga's
// default, including its parse and validate caches (useParserAndValidationCache), error
// masking, the CORS plugin and the health check route, because that is what users run.
//
// Added the way Yoga's docs show them:
// - depth limit: GraphQL Armor's max-depth plugin (n = DEPTH_LIMIT = 10), as Yoga recommends;
// - subscriptions: Yoga's built-in GraphQL over SSE (distinct connections mode: POST
//   /graphql with Accept: text/event-stream) and graphql-ws on a `ws` WebSocketServer on the
//   same port and path, executing through yoga.getEnveloped() so plugins (the depth limit,
//   context) apply there too; Yoga's createPubSub carries the ticks;
// - GQLBENCH_RESOLVERS: PostgreSQL resolvers, DataLoaders per request via `context`;
// - GQLBENCH_RESPONSE_CACHE=1 (targets/graphql-yoga-cache): Yoga's response cache plugin,
//   one cache for everyone (session: () => null), entries kept GQLBENCH_CACHE_TTL_MS.

import { createServer } from 'node:http';
import { setMaxListeners } from 'node:events';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError } from 'graphql';
import { createPubSub, createSchema, createYoga } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { typeDefs, DEPTH_LIMIT } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { TICKS_TOPIC, closeWebSockets, tickerFromEnv } from '../_node/subscriptions.mjs';
import {
  GRAPHQL_PATH,
  documentIdOf,
  incrementalFromEnv,
  persistedDocumentsFromEnv,
  serveHttp,
  yogaBatching,
} from '../_node/server-common.mjs';
import { responseCacheFromEnv } from '../_node/response-cache.mjs';

const ticker = tickerFromEnv('graphql-yoga');
const data = await dataSourceFromEnv({
  name: 'graphql-yoga',
  load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
});

// Node warns past 10 listeners per EventTarget event, and every subscriber is one here.
const eventTarget = new EventTarget();
setMaxListeners(0, eventTarget);
const pubsub = createPubSub({ eventTarget });

// Incremental delivery: Yoga's own plugin (it adds @defer and @stream to the schema and
// answers them in multipart/mixed parts, or SSE), only when a scenario asks.
const incrementalPlugins = [];
if (incrementalFromEnv()) {
  const { useDeferStream } = await import('@graphql-yoga/plugin-defer-stream');
  incrementalPlugins.push(useDeferStream());
}

// Persisted documents by id: Yoga's own plugin, its documents from gqlbench's manifest,
// only when a scenario asks. Arbitrary documents stay allowed, so readiness checks and
// other clients' plain queries still work (an allow-list would refuse them).
const documentPlugins = [];
const documents = persistedDocumentsFromEnv();
if (documents) {
  const { usePersistedOperations } = await import('@graphql-yoga/plugin-persisted-operations');
  documentPlugins.push(
    usePersistedOperations({
      getPersistedOperation: (id) => documents.get(id) ?? null,
      extractPersistedOperationId: documentIdOf,
      allowArbitraryOperations: true,
    }),
  );
}

const cache = responseCacheFromEnv('graphql-yoga');
const cachePlugins = [];
if (cache) {
  const { useResponseCache } = await import('@graphql-yoga/plugin-response-cache');
  cachePlugins.push(useResponseCache({ session: () => null, ttl: cache.ttlMs }));
}

const yoga = createYoga({
  schema: createSchema({
    typeDefs,
    resolvers: [data.resolvers, { Subscription: { ticks: { subscribe: () => pubsub.subscribe(TICKS_TOPIC) } } }],
  }),
  graphqlEndpoint: GRAPHQL_PATH,
  graphiql: false,
  landingPage: false,
  plugins: [maxDepthPlugin({ n: DEPTH_LIMIT }), ...cachePlugins, ...incrementalPlugins, ...documentPlugins],
  ...yogaBatching(),
  ...(data.makeContext ? { context: () => data.makeContext() } : {}),
});

const server = createServer(yoga);
const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint });
useServer(
  {
    execute: (args) => args.rootValue.execute(args),
    subscribe: (args) => args.rootValue.subscribe(args),
    onSubscribe: async (ctx, _id, params) => {
      const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
        ...ctx,
        req: ctx.extra.request,
        socket: ctx.extra.socket,
        params,
      });
      // Unlike the recipe, GraphQL errors thrown by parse or validate (a syntax error, or the
      // max-depth plugin, which throws instead of reporting) are returned as the operation's
      // errors: graphql-ws would otherwise close the whole socket with 4500.
      let document;
      try {
        document = parse(params.query);
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
      } catch (err) {
        if (err instanceof GraphQLError) return [err];
        throw err;
      }
      return {
        schema,
        operationName: params.operationName,
        document,
        variableValues: params.variables,
        contextValue: await contextFactory(),
        rootValue: { execute, subscribe },
      };
    },
  },
  wss,
);

ticker.start((tick) => pubsub.publish(TICKS_TOPIC, { ticks: tick }));

// SSE streams are ordinary HTTP responses: closeAllConnections() in serveHttp ends them.
serveHttp('graphql-yoga', server, {
  alsoClose: () => {
    ticker.stop();
    return Promise.all([closeWebSockets(wss.clients), data.close()]);
  },
});
