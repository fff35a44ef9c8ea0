// Apollo Gateway 2 (@apollo/gateway, JavaScript query planner) hosted in GraphQL Yoga 5 through
// @envelop/apollo-federation: seed 002's apollo-gateway-with-yoga. The gateway loads the
// supergraph from $GQLBENCH_SUPERGRAPH (no uplink, no polling); the plugin hands its schema to
// Yoga and executes every operation through the gateway's executor (its query-plan cache:
// in-memory LRU, defaults). Yoga's defaults kept (parse and validate caches); GraphiQL and
// the landing page off. The gateway logs only warnings and errors.
import { createServer } from 'node:http';
import { ApolloGateway } from '@apollo/gateway';
import { useApolloFederation } from '@envelop/apollo-federation';
import { createYoga } from 'graphql-yoga';
import { GRAPHQL_PATH, serveHttp, yogaBatching } from '../_node/server-common.mjs';
import { readSupergraph } from '../_federation/gateway-common.mjs';

const quiet = { debug() {}, info() {}, warn: console.warn, error: console.error };
const gateway = new ApolloGateway({ supergraphSdl: readSupergraph(), logger: quiet });
await gateway.load();

const yoga = createYoga({
  plugins: [useApolloFederation({ gateway })],
  graphqlEndpoint: GRAPHQL_PATH,
  graphiql: false,
  landingPage: false,
  ...yogaBatching(),
});
serveHttp('yoga-apollo-gateway', createServer(yoga), { alsoClose: () => gateway.stop() });
