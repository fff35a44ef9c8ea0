// Hive Gateway (@graphql-hive/gateway: createGatewayRuntime on bare node:http) with the Hive
// Router runtime: query planning and plan execution by @graphql-hive/router-runtime (the
// Rust query planner of Hive Router through napi, `@graphql-hive/router-query-planner`),
// passed as `unifiedGraphHandler`, exactly what the CLI's `--hive-router-runtime` flag does.
// Everything else as in targets/hive-gateway: one process, supergraph from
// $GQLBENCH_SUPERGRAPH read once (no polling, no registry, no reporting), landing page,
// GraphiQL and logging off; defaults kept: Yoga's parse/validation caches, the planner's
// per-document plan cache, batching off, no response cache, inbound in-flight request
// deduplication off.

import { createServer } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { serveHttp, yogaBatching } from '../_node/server-common.mjs';
import { supergraphPath } from '../_federation/gateway-common.mjs';
import { hivePersistedDocuments } from '../_federation/hive-persisted.mjs';

const gateway = createGatewayRuntime({
  supergraph: supergraphPath(),
  unifiedGraphHandler,
  graphqlEndpoint: '/graphql',
  landingPage: false,
  graphiql: false,
  logging: 'warn',
  ...yogaBatching(),
  ...hivePersistedDocuments(),
});

const server = serveHttp('hive-gateway-router-runtime', createServer(gateway));
server.on('close', () => gateway.dispose?.());
