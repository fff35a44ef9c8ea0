// Apollo Server 5 behind Express 5, as targets/apollo-server, with graphql 17.0.0-alpha.9:
// the graphql-js release Apollo Server 5 executes @defer and @stream with (graphql 16, which
// every other Node target pins, has neither). It serves the incremental scenarios only
// (workload social-defer), so it carries none of apollo-server's other additions
// (subscriptions, database resolvers, response cache, depth limit).
//
// graphql 17's @defer and @stream are not in its specifiedDirectives: a schema serves them
// when it lists them, so the executable schema is rebuilt with both added. Apollo Server
// answers an incremental operation in multipart/mixed parts in the format the client's
// Accept header asks for (`deferSpec=20220824`, the format gqlbench asks for first, or
// graphql 17's own `incrementalSpec=v0.2`), and refuses one without such an Accept (406).
// Its defaults are kept (document cache, CSRF prevention; with NODE_ENV=production, no
// introspection).

import http from 'node:http';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { makeExecutableSchema } from '@graphql-tools/schema';
import express from 'express';
import { GraphQLDeferDirective, GraphQLSchema, GraphQLStreamDirective, specifiedDirectives } from 'graphql';
import { typeDefs } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { GRAPHQL_PATH, serveHttp } from '../_node/server-common.mjs';

// In-memory resolvers only: the incremental scenarios run without a database.
const data = await dataSourceFromEnv({
  name: 'apollo-server-graphql17',
  load: async () => {
    throw new Error('this target has no database resolvers (no pg installed)');
  },
});

const base = makeExecutableSchema({ typeDefs, resolvers: [data.resolvers] });
const schema = new GraphQLSchema({
  ...base.toConfig(),
  directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective],
});

const apollo = new ApolloServer({ schema });
await apollo.start();

const app = express();
// express.json() is required: the integration reads req.body and refuses to run without it.
app.use(GRAPHQL_PATH, express.json(), expressMiddleware(apollo));

serveHttp('apollo-server-graphql17', http.createServer(app), { alsoClose: () => apollo.stop() });
