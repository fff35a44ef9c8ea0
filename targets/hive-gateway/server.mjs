// Hive Gateway (@graphql-hive/gateway: createGatewayRuntime, a GraphQL Yoga server with the
// graphql-tools federation runtime) on bare node:http, one process (the CLI's --fork is
// not used: every gateway gets one Node process under the same CPU quota).
//
// Supergraph: the file in $GQLBENCH_SUPERGRAPH, read once (no Hive/GraphOS registry, no
// usage reporting); polled every 500 ms only in the reload scenario (GQLBENCH_RELOAD=1,
// ../_federation/hive-runtime.mjs). Off: landing page, GraphiQL, logging (the logger stays at
// "warn": no per-request lines). Kept at defaults: Yoga's parse/validation caches, the
// runtime's memoized delegation plans per document, batching off (`batching` unset), no
// response cache (`responseCaching` unset), inbound in-flight request deduplication off
// (`inboundInflightRequestDeduplication` defaults to false), error masking on.
// GQLBENCH_RESPONSE_CACHE=1 (targets/hive-gateway-cache): responseCaching, one cache for
// everyone (session: () => null), entries kept GQLBENCH_CACHE_TTL_MS, in an in-memory LRU
// (the runtime has no store of its own and refuses a response cache without one).

import { createServer } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { incrementalFromEnv, serveHttp, yogaBatching } from '../_node/server-common.mjs';
import { makeGateway } from '../_federation/hive-runtime.mjs';
import { hivePersistedDocuments } from '../_federation/hive-persisted.mjs';
import { selectedPlugins } from './plugins.mjs';
import { responseCacheFromEnv } from '../_node/response-cache.mjs';
import { countExecution } from '../_node/counters.mjs';

// The tracing variants (targets/hive-gateway-tracing-*): traces exported over OTLP/HTTP to
// the run's collector, sampled at GQLBENCH_TRACE_SAMPLING; without GQLBENCH_OTLP_URL no
// tracing is set up at all (the plain target).
const otlp = process.env.GQLBENCH_OTLP_URL;
let tracing = null;
if (otlp) {
  const { openTelemetrySetup } = await import('@graphql-hive/plugin-opentelemetry/setup');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  openTelemetrySetup({
    contextManager: new AsyncLocalStorageContextManager(),
    traces: { exporter: new OTLPTraceExporter({ url: `${otlp}/v1/traces` }) },
    samplingRate: Number(process.env.GQLBENCH_TRACE_SAMPLING ?? '1'),
    resource: { serviceName: 'hive-gateway' },
  });
  // What the CLI's `openTelemetry: { traces: true }` adds; the runtime alone does not.
  const { useOpenTelemetry } = await import('@graphql-hive/plugin-opentelemetry');
  tracing = (ctx) => useOpenTelemetry({ traces: true, log: ctx.log });
}

// Every operation the gateway executes counts once (counters.mjs): a response cache's
// hits are answered before execution, so they are the requests that never get here.
const countExecutions = { onExecute: () => countExecution() };

const cache = responseCacheFromEnv('hive-gateway');
let caching = {};
if (cache) {
  const { default: InMemoryLRUCache } = await import('@graphql-mesh/cache-inmemory-lru');
  caching = { cache: new InMemoryLRUCache(), responseCaching: { session: () => null, ttl: cache.ttlMs } };
}

const gateway = makeGateway(createGatewayRuntime, {
  ...caching,
  ...hivePersistedDocuments(),
  ...yogaBatching(),
  // Incremental delivery (@defer/@stream) only when a scenario asks: off by default.
  ...(incrementalFromEnv() ? { deferStream: true } : {}),
  // The extensibility suite's variants (targets/hive-gateway-*) load one customization.
  plugins: (ctx) => [...(tracing ? [tracing(ctx)] : []), ...selectedPlugins(), countExecutions],
});

const server = serveHttp('hive-gateway', createServer(gateway));
// Let the runtime release its resources after the HTTP server closed (serveHttp's own
// SIGTERM handler exits within 500 ms in any case).
server.on('close', () => gateway.dispose?.());
