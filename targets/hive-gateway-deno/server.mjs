// Hive Gateway 2 on Deno: its runtime (a fetch handler) served by Deno.serve, as Hive
// Gateway's Deno page shows. The same gateway options as the hive-gateway target
// (_federation/hive-runtime.mjs); modules from this folder's node_modules.
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { makeGateway } from '../_federation/hive-runtime.mjs';
import { HOST, PORT, logReady, onShutdown } from '../_node/server-common.mjs';

const gateway = makeGateway(createGatewayRuntime);
const server = Deno.serve({ hostname: HOST, port: PORT, onListen: ({ port }) => logReady('hive-gateway-deno', port) }, gateway);
onShutdown('hive-gateway-deno', async () => {
  await server.shutdown();
  await gateway.dispose?.();
});
