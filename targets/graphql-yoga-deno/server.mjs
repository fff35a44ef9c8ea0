// GraphQL Yoga 5 on Deno: Yoga as the handler of Deno.serve, as Yoga's Deno page shows.
// The same Yoga as the graphql-yoga target's HTTP path (_node/yoga.mjs), its modules from
// this folder's node_modules (Deno reads package.json); no subscriptions or database
// resolvers (the runtimes scenario needs neither).
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { createSchema, createYoga } from 'graphql-yoga';
import { makeYoga } from '../_node/yoga.mjs';
import { HOST, PORT, logReady, onShutdown } from '../_node/server-common.mjs';

const yoga = makeYoga({ createYoga, createSchema, maxDepthPlugin });
const server = Deno.serve({ hostname: HOST, port: PORT, onListen: ({ port }) => logReady('graphql-yoga-deno', port) }, yoga);
onShutdown('graphql-yoga-deno', () => server.shutdown());
