// express-graphql 0.12 (graphql/express-graphql, archived: deprecated in favour of
// graphql-http) on Express 4: seed 003's "express-graphql" entry. Its middleware as
// shipped, with graphql-js 15 (its peer range is ^14.7 || ^15.3, so not the 16 the other
// servers use): every request parsed, validated and executed (no parse or validation
// cache); GraphiQL off.
//
// The depth limit is graphql-depth-limit (DEPTH_LIMIT = 10) in the middleware's
// `validationRules` (added to graphql-js' specified rules). GQLBENCH_RESOLVERS switches to
// the PostgreSQL resolvers (DataLoaders per request in the middleware's `context`).

import http from 'node:http';
import express from 'express';
import { graphqlHTTP } from 'express-graphql';
import { buildSchema } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { typeDefs, attachResolvers, DEPTH_LIMIT } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { GRAPHQL_PATH, serveHttp } from '../_node/server-common.mjs';

const data = await dataSourceFromEnv({
  name: 'express-graphql',
  load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
});
const schema = attachResolvers(buildSchema(typeDefs), data.resolvers);
const rules = [depthLimit(DEPTH_LIMIT)];

const app = express();
app.disable('x-powered-by');
app.use(GRAPHQL_PATH, graphqlHTTP(() => ({
  schema,
  graphiql: false,
  validationRules: rules,
  context: data.makeContext ? data.makeContext() : undefined,
})));

serveHttp('express-graphql', http.createServer(app), { alsoClose: data.close });
