// Apollo Server 5 on Fastify 5 through @as-integrations/fastify (the integration Apollo's
// docs list for Fastify), for the integrations scenario: the same ApolloServer as
// server.mjs (schema, depth limit, defaults). Fastify's logger is off, as in the mercurius
// target: per-request logging would dominate.
import { ApolloServer } from '@apollo/server';
import fastifyApollo, { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import Fastify from 'fastify';
import depthLimit from 'graphql-depth-limit';
import { typeDefs, resolvers, DEPTH_LIMIT } from '../_node/index.mjs';
import { GRAPHQL_PATH, serveFastify } from '../_node/server-common.mjs';

const app = Fastify({ logger: false, forceCloseConnections: true });
const apollo = new ApolloServer({
  typeDefs,
  resolvers,
  validationRules: [depthLimit(DEPTH_LIMIT)],
  plugins: [fastifyApolloDrainPlugin(app)],
});
await apollo.start();
await app.register(fastifyApollo(apollo), { path: GRAPHQL_PATH });
await serveFastify('apollo-server-fastify', app, { alsoClose: () => apollo.stop() });
