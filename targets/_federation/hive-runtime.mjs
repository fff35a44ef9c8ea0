// Hive Gateway's runtime (createGatewayRuntime: a fetch handler) with the options every
// hive-gateway target shares: the run's supergraph, /graphql, no landing page or GraphiQL,
// logging at "warn". The Node target (../hive-gateway/server.mjs) adds its Node-only parts
// (OpenTelemetry, the extensibility plugins, the response cache); the Bun and Deno variants
// serve it as it is. `createGatewayRuntime` comes from the caller, so each target uses its
// own install (no dependencies here).
import { supergraphPath } from './gateway-common.mjs';

// The reload scenario (GQLBENCH_RELOAD=1, src/kinds/reload/) rewrites the supergraph file
// while the gateway runs. The runtime polls a supergraph only when it is "dynamic": a plain
// file path counts as static and its `pollingInterval` is dropped, so the path is given
// through a function (read again on every poll) with a poll every 500 ms. Otherwise the
// file is read once, as before.
const RELOAD_POLL_MS = 500;

export function supergraphOption() {
  const path = supergraphPath();
  if (process.env.GQLBENCH_RELOAD !== '1') return { supergraph: path };
  return { supergraph: () => path, pollingInterval: RELOAD_POLL_MS };
}

export function makeGateway(createGatewayRuntime, extra = {}) {
  return createGatewayRuntime({
    ...supergraphOption(),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: false,
    logging: 'warn',
    ...extra,
  });
}
