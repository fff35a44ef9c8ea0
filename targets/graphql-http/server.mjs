// graphql-http, the GraphQL-over-HTTP reference server (graphql/graphql-http), on node:http:
// the floor a framework's overhead is measured against. Its handler as shipped: every
// request is parsed and validated by graphql-js and executed with execute() (no parse or
// validation cache: the reference has none), and answered as the spec says (a request
// asking for application/graphql-response+json gets HTTP 4xx for a document that does not
// validate; application/json gets 200 with the errors).
//
// The depth limit is graphql-depth-limit (DEPTH_LIMIT = 10) added to the validation rules
// through the handler's `validationRules` option. GQLBENCH_RESOLVERS switches to the
// PostgreSQL resolvers (DataLoaders per request in the handler's `context`).

import { createServer } from 'node:http';
import { buildSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/http';
import depthLimit from 'graphql-depth-limit';
import { typeDefs, attachResolvers, DEPTH_LIMIT } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';
import { GRAPHQL_PATH, serveHttp, sendError } from '../_node/server-common.mjs';

const data = await dataSourceFromEnv({
  name: 'graphql-http',
  load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
});
// GQLBENCH_SCHEMA_BUILDER=pothos|nexus (the graphql-http-pothos and -nexus variants): the
// same schema built code first over the same resolvers, held to the SDL before it serves.
const BUILDERS = {
  pothos: ['Pothos', './pothos-schema.mjs', 'pothosSchema'],
  nexus: ['Nexus', './nexus-schema.mjs', 'nexusSchema'],
};
async function codeFirstSchema(name) {
  const [label, file, build] = BUILDERS[name] ?? [];
  if (!label) throw new Error(`GQLBENCH_SCHEMA_BUILDER=${name}: not one of ${Object.keys(BUILDERS).join(', ')}`);
  const { sameAsSdl } = await import('./same-as-sdl.mjs');
  return sameAsSdl((await import(file))[build](data.resolvers), label);
}
const builder = process.env.GQLBENCH_SCHEMA_BUILDER;
const schema = builder
  ? await codeFirstSchema(builder)
  : attachResolvers(buildSchema(typeDefs), data.resolvers);

const handler = createHandler({
  schema,
  // An array (the handler adds graphql-js' specified rules to it): one rule made once,
  // not a callback making one per request.
  validationRules: [depthLimit(DEPTH_LIMIT)],
  context: () => (data.makeContext ? data.makeContext() : undefined),
});

serveHttp('graphql-http', createServer((req, res) => {
  if (req.url.split('?', 1)[0] !== GRAPHQL_PATH) return sendError(res, 404, 'not found');
  handler(req, res).catch((err) => {
    console.error('graphql-http: request failed:', err);
    if (!res.headersSent) sendError(res, 500, 'internal error');
    else res.destroy();
  });
}), { alsoClose: data.close });
