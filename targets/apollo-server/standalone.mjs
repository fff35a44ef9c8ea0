// Apollo Server 5's own HTTP server (startStandaloneServer from @apollo/server/standalone:
// node:http, no framework), for the integrations scenario: the same ApolloServer as
// server.mjs (schema, depth limit, defaults) with nothing around it, so the cost of an
// integration (Express 4/5, Fastify) is the difference from this one.
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import depthLimit from 'graphql-depth-limit';
import { typeDefs, resolvers, DEPTH_LIMIT } from '../_node/index.mjs';
import { HOST, PORT, logReady, onShutdown } from '../_node/server-common.mjs';

const apollo = new ApolloServer({ typeDefs, resolvers, validationRules: [depthLimit(DEPTH_LIMIT)] });
// Serves every path, /graphql included. Its drain plugin (added by startStandaloneServer)
// waits for open requests on stop; onShutdown exits after its grace period regardless.
const { url } = await startStandaloneServer(apollo, { listen: { host: HOST, port: PORT } });
logReady('apollo-server-standalone', Number(new URL(url).port));
onShutdown('apollo-server-standalone', () => apollo.stop());
