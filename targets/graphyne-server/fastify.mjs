// graphyne-server on Fastify 5 (seed 003's "graphyne-server-fastify"): a route on /graphql
// hands Fastify's raw request and response to graphyne's handler, with the JSON body Fastify
// has already parsed (graphyne reads `req.body` when it is set), and takes the reply over.
// Fastify's logger is off, as in the mercurius target: per-request logging would dominate.
import Fastify from 'fastify';
import { GRAPHQL_PATH, serveFastify } from '../_node/server-common.mjs';
import { graphyneHandler } from './gql.mjs';

const { handler, close } = await graphyneHandler('graphyne-server-fastify');
const handle = handler();
const app = Fastify({ logger: false, forceCloseConnections: true });
app.route({
  method: ['GET', 'POST'],
  url: GRAPHQL_PATH,
  handler: (request, reply) => {
    reply.hijack();
    request.raw.body = request.body ?? null;
    handle(request.raw, reply.raw);
  },
});
await serveFastify('graphyne-server-fastify', app, { alsoClose: close });
