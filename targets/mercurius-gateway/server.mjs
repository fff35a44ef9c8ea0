// @mercuriusjs/gateway on Fastify 5 + Mercurius. It does not read a supergraph: it fetches
// each subgraph's SDL (`_service { sdl }`) at start-up and composes itself, and it only
// understands Federation v1 subgraph SDL (target.toml: [federation] version = "v1", so the
// runner starts the subgraphs with --federation v1). The subgraphs and their URLs come from
// GQLBENCH_SUBGRAPHS (the demo's four or the wide graph's twelve).
//
// Off: Fastify's logger (per-request logging), GraphiQL, schema polling (pollingInterval
// unset). Kept at defaults: Mercurius' LRU cache of parsed/validated documents, jit off
// (Mercurius' default: 0), the gateway's LRU cache (1024 entries) of the subgraph queries it
// generates per resolver (its query-plan cache), batched queries off, 10 undici connections
// per subgraph, per-request entity batching (single-user-cache) but no deduplication across
// requests. Start-up waits for the subgraphs (retries every 3 s, 10 times).

import Fastify from 'fastify';
import mercuriusGateway from '@mercuriusjs/gateway';
import { GRAPHQL_PATH, batchingFromEnv, serveFastify } from '../_node/server-common.mjs';
import { subgraphUrls } from '../_federation/gateway-common.mjs';

const app = Fastify({ logger: false, forceCloseConnections: true });
// The gateway plugin registers Mercurius itself and takes its options.
app.register(mercuriusGateway, {
  path: GRAPHQL_PATH,
  graphiql: false,
  // Off unless a batching scenario asks (the default).
  allowBatchedQueries: batchingFromEnv() > 0,
  gateway: {
    services: subgraphUrls().map(({ name, url }) => ({ name, url, mandatory: true })),
  },
});

await serveFastify('mercurius-gateway', app);
