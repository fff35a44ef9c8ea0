// Hive Gateway's runtime as a fetch handler, for the Bun and Deno variants of hive-gateway:
// the options of ../hive-gateway/server.mjs without its Node-only parts (the OpenTelemetry
// set-up and the extensibility plugins). `createGatewayRuntime` comes from the caller, so each
// variant uses its own install (no dependencies here).
import { supergraphPath } from './gateway-common.mjs';

export function makeGateway(createGatewayRuntime) {
  return createGatewayRuntime({
    supergraph: supergraphPath(),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: false,
    logging: 'warn',
  });
}
