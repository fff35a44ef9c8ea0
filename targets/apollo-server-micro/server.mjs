// Apollo Server 3 (apollo-server-micro 3.13, end of life since October 2024) on micro 9:
// seed 003's "apollo-server-micro" entry, and what moving off Apollo Server 3 gains
// (apollo-server is Apollo Server 5 on Express 5). Defaults kept: the parsed/validated
// document store, no response cache, CSRF prevention off (Apollo Server 3's default),
// the production landing page (NODE_ENV=production), introspection off in production;
// `cache: 'bounded'` so its persisted-query cache is bounded, as Apollo Server 3 advises.
//
// The depth limit is graphql-depth-limit (DEPTH_LIMIT = 10) in `validationRules`.
// GQLBENCH_RESOLVERS switches to the PostgreSQL resolvers (DataLoaders per request in
// `context`).

import { ApolloServer } from 'apollo-server-micro';
import micro from 'micro';
import { buildSchema } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { typeDefs, attachResolvers, DEPTH_LIMIT } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { GRAPHQL_PATH, serveHttp, sendError } from '../_node/server-common.mjs';

const data = await dataSourceFromEnv({
  name: 'apollo-server-micro',
  load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
});
const schema = attachResolvers(buildSchema(typeDefs), data.resolvers);

const apollo = new ApolloServer({
  schema,
  cache: 'bounded',
  validationRules: [depthLimit(DEPTH_LIMIT)],
  context: () => (data.makeContext ? data.makeContext() : {}),
});
await apollo.start();
const handle = apollo.createHandler({ path: GRAPHQL_PATH });

serveHttp('apollo-server-micro', micro(async (req, res) => {
  if (req.url.split('?', 1)[0] !== GRAPHQL_PATH) return sendError(res, 404, 'not found');
  return handle(req, res);
}), { alsoClose: () => Promise.all([apollo.stop(), data.close?.()]) });
