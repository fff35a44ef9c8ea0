// The Yoga of the Bun and Deno targets, built as graphql-yoga/server.mjs builds it for
// HTTP (Yoga's defaults, GraphiQL and the landing page off, GraphQL Armor's max-depth at
// DEPTH_LIMIT), with the in-memory resolvers. The modules come from the caller, so each
// target uses its own install (no dependencies here).
import { typeDefs, resolvers, DEPTH_LIMIT } from './index.mjs';
import { GRAPHQL_PATH } from './server-common.mjs';

export function makeYoga({ createYoga, createSchema, maxDepthPlugin }) {
  return createYoga({
    schema: createSchema({ typeDefs, resolvers }),
    graphqlEndpoint: GRAPHQL_PATH,
    graphiql: false,
    landingPage: false,
    plugins: [maxDepthPlugin({ n: DEPTH_LIMIT })],
  });
}
