// A GraphQL Yoga 5 gateway that stitches the four federation subgraphs with
// @graphql-tools/stitch: seed 002's stitching-federation-with-yoga. It reads no
// supergraph: at start-up it asks each subgraph for its SDL (`_service { sdl }`, Federation v1
// as target.toml asks the runner for), turns it into stitching directives
// (federationToStitchingSDL: @key -> @merge through `_entities`, @requires -> @computed) and
// stitches the four as merged types, each executed over HTTP (@graphql-tools/executor-http).
//
// `batch: true` on each subschema, as graphql-tools' federation example has it: the entity
// fetches of one request to one subgraph go out as one batch (like the federation gateways'
// per-request entity batching). executor-http's defaults kept, among them
// deduplicateInflightRequests (true): identical subgraph queries in flight at once, from
// different client requests, are sent once, as in Hive Gateway (the same executor). Yoga's
// defaults kept (parse and validate caches); GraphiQL and the landing page off.
import { createServer } from 'node:http';
import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import { stitchSchemas } from '@graphql-tools/stitch';
import { federationToStitchingSDL, stitchingDirectives } from '@graphql-tools/stitching-directives';
import { buildSchema } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { GRAPHQL_PATH, serveHttp, yogaBatching } from '../_node/server-common.mjs';
import { subgraphUrls } from '../_federation/gateway-common.mjs';

const NAME = 'yoga-stitching';
const config = stitchingDirectives();

// A subgraph's SDL, waiting for it to come up (the runner starts subgraphs first, but a
// run by hand may not): 20 tries, 250 ms apart.
async function subgraphSdl({ name, url }) {
  let last;
  for (let i = 0; i < 20; i++) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ _service { sdl } }' }),
      });
      const body = await res.json();
      const sdl = body?.data?._service?.sdl;
      if (typeof sdl === 'string') return sdl;
      last = new Error(`no _service.sdl in ${JSON.stringify(body).slice(0, 200)}`);
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  console.error(`${NAME}: cannot read the SDL of subgraph ${name} at ${url}: ${last?.message}`);
  process.exit(1);
}

const subschemas = await Promise.all(
  subgraphUrls().map(async (sg) => ({
    schema: buildSchema(federationToStitchingSDL(await subgraphSdl(sg), config)),
    executor: buildHTTPExecutor({ endpoint: sg.url }),
    batch: true,
  })),
);

const yoga = createYoga({
  schema: stitchSchemas({ subschemaConfigTransforms: [config.stitchingDirectivesTransformer], subschemas }),
  graphqlEndpoint: GRAPHQL_PATH,
  graphiql: false,
  landingPage: false,
  ...yogaBatching(),
});
serveHttp(NAME, createServer(yoga));
