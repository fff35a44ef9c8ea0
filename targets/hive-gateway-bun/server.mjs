// Hive Gateway 2 on Bun: its runtime (a fetch handler) served by Bun.serve, as Hive
// Gateway's Bun page shows; seed 002's mesh-bun, whose successor Hive Gateway is. The same
// gateway options as the hive-gateway target (_federation/hive-runtime.mjs).
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { makeGateway } from '../_federation/hive-runtime.mjs';
import { HOST, PORT, logReady, onShutdown } from '../_node/server-common.mjs';

const gateway = makeGateway(createGatewayRuntime);
const server = Bun.serve({ hostname: HOST, port: PORT, fetch: gateway });
logReady('hive-gateway-bun', server.port);
onShutdown('hive-gateway-bun', async () => {
  server.stop(true);
  await gateway.dispose?.();
});
