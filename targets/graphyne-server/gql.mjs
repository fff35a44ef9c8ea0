// The graphyne-server instance every entry point of this target serves (node:http, Express,
// Fastify, micro): graphyne-server 0.15 as shipped, which compiles each distinct query
// with its own graphql-jit fork (@hoangvvo/graphql-jit) and keeps the compiled query in an
// LRU of 1024, so a repeated query is neither parsed, validated nor compiled again. Its
// GraphQL class takes no validation rules (it validates with graphql-js 15's specified
// rules only), so no depth limit is added: the depth scenario shows what it lets through.
//
// GQLBENCH_RESOLVERS switches to the PostgreSQL resolvers (DataLoaders per request in the
// handler's context).
import { buildSchema } from 'graphql';
import graphyne from 'graphyne-server';
import { typeDefs, attachResolvers } from '../_node/index.mjs';
import { dataSourceFromEnv } from '../_node/db.mjs';

export async function graphyneHandler(name) {
  const data = await dataSourceFromEnv({
    name,
    load: async () => ({ pg: (await import('pg')).default, DataLoader: (await import('dataloader')).default }),
  });
  const schema = attachResolvers(buildSchema(typeDefs), data.resolvers);
  const gql = new graphyne.GraphQL({ schema });
  // Frameworks with routers route by themselves (graphyne's README: no `path` there).
  const handler = (path) =>
    graphyne.httpHandler(gql, {
      path,
      context: () => (data.makeContext ? data.makeContext() : {}),
    });
  return { handler, close: data.close };
}
