// Hive Gateway's runtime (createGatewayRuntime: a fetch handler) with the options every
// hive-gateway target shares: the run's supergraph, /graphql, no landing page or GraphiQL,
// logging at "warn". The Node target (../hive-gateway/server.mjs) adds its Node-only parts
// (OpenTelemetry, the extensibility plugins, the response cache); the Bun and Deno variants
// serve it as it is. `createGatewayRuntime` comes from the caller, so each target uses its
// own install (no dependencies here).
import { supergraphPath } from './gateway-common.mjs';

export function makeGateway(createGatewayRuntime, extra = {}) {
  return createGatewayRuntime({
    supergraph: supergraphPath(),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: false,
    logging: 'warn',
    ...extra,
  });
}
