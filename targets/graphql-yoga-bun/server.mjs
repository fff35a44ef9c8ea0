// GraphQL Yoga 5 on Bun: Yoga's fetch handler given to Bun.serve, as Yoga's Bun page shows.
// The same Yoga as the graphql-yoga target's HTTP path (_node/yoga.mjs); no subscriptions
// or database resolvers (the runtimes scenario needs neither).
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { createSchema, createYoga } from 'graphql-yoga';
import { makeYoga } from '../_node/yoga.mjs';
import { HOST, PORT, logReady, onShutdown } from '../_node/server-common.mjs';

const yoga = makeYoga({ createYoga, createSchema, maxDepthPlugin });
const server = Bun.serve({ hostname: HOST, port: PORT, fetch: yoga });
logReady('graphql-yoga-bun', server.port);
// stop(true) closes the open connections too.
onShutdown('graphql-yoga-bun', () => server.stop(true));
