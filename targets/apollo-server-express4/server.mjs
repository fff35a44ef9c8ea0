// Apollo Server 5 on Express 4 through @as-integrations/express4, for the integrations
// scenario: the same ApolloServer as ../apollo-server/server.mjs (schema, depth limit,
// defaults) on the Express major most deployments still run. Its own folder and lockfile:
// Express 4 and the base's Express 5 cannot share one node_modules.
import http from 'node:http';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express4';
import express from 'express';
import depthLimit from 'graphql-depth-limit';
import { typeDefs, resolvers, DEPTH_LIMIT } from '../_node/index.mjs';
import { GRAPHQL_PATH, serveHttp } from '../_node/server-common.mjs';

const apollo = new ApolloServer({ typeDefs, resolvers, validationRules: [depthLimit(DEPTH_LIMIT)] });
await apollo.start();

const app = express();
// express.json() is required: the integration reads req.body.
app.use(GRAPHQL_PATH, express.json(), expressMiddleware(apollo));
serveHttp('apollo-server-express4', http.createServer(app), { alsoClose: () => apollo.stop() });
