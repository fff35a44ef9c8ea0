// GraphQL Yoga 5 on node:http (Yoga's request handler is a node:http listener).
//
// Only GraphiQL (the default landing page for GET) is turned off; everything else is Yoga's
// default, including its parse and validate caches (useParserAndValidationCache), error
// masking, the CORS plugin and the health check route, because that is what users run.

import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import { typeDefs, resolvers } from '../_node/index.mjs';
import { GRAPHQL_PATH, serveHttp } from '../_node/server-common.mjs';

const yoga = createYoga({
  schema: createSchema({ typeDefs, resolvers }),
  graphqlEndpoint: GRAPHQL_PATH,
  graphiql: false,
  landingPage: false,
});

serveHttp('graphql-yoga', createServer(yoga));
