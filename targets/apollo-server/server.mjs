// Apollo Server 5 behind Express 5 (the articles ran Apollo with Express; in v5 the Express
// integration moved out of @apollo/server into @as-integrations/express5).
//
// Apollo's defaults are kept on purpose, since they are what users run: the parsed and
// validated document cache (documentStore, on by default), CSRF prevention (our requests
// carry content-type: application/json, so they pass), and, with NODE_ENV=production, no
// introspection and the production landing page (GET only; irrelevant to POST throughput).
// Usage reporting stays off because no APOLLO_KEY is set. No drain plugin: shutdown closes
// connections itself (server-common) and a drain would only delay the stop.

import http from 'node:http';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { typeDefs, resolvers } from '../_node/index.mjs';
import { GRAPHQL_PATH, serveHttp } from '../_node/server-common.mjs';

const apollo = new ApolloServer({ typeDefs, resolvers });
await apollo.start();

const app = express();
// express.json() is required: the integration reads req.body and refuses to run without it.
app.use(GRAPHQL_PATH, express.json(), expressMiddleware(apollo));

const server = http.createServer(app);
serveHttp('apollo-server', server);
