// Hive Gateway (@graphql-hive/gateway: createGatewayRuntime on bare node:http) with the Hive
// Router runtime: query planning and plan execution by @graphql-hive/router-runtime (the
// Rust query planner of Hive Router through napi, `@graphql-hive/router-query-planner`),
// passed as `unifiedGraphHandler`, exactly what the CLI's `--hive-router-runtime` flag does.
// Everything else as in targets/hive-gateway: one process, supergraph from
// $GQLBENCH_SUPERGRAPH read once (polled every 500 ms only in the reload scenario; no
// registry, no reporting), landing page, GraphiQL and logging off; defaults kept: Yoga's parse/validation caches, the planner's
// per-document plan cache, batching off, no response cache, inbound in-flight request
// deduplication off.

import { createServer } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { serveHttp, yogaBatching } from '../_node/server-common.mjs';
import { hivePersistedDocuments } from '../_federation/hive-persisted.mjs';
import { supergraphOption } from '../_federation/hive-runtime.mjs';

const gateway = createGatewayRuntime({
  // Read once, or polled every 500 ms in the reload scenario (GQLBENCH_RELOAD=1).
  ...supergraphOption(),
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
