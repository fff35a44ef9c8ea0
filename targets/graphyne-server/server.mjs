// graphyne-server 0.15 (hoangvvo/graphyne, experimental, succeeded by @benzene/http) on
// node:http: seed 003's "graphyne-server" entry, the base its Express, Fastify and micro
// variants are measured against. Its handler answers on /graphql only (404 elsewhere).
import http from 'node:http';
import { GRAPHQL_PATH, serveHttp } from '../_node/server-common.mjs';
import { graphyneHandler } from './gql.mjs';

const { handler, close } = await graphyneHandler('graphyne-server');
serveHttp('graphyne-server', http.createServer(handler(GRAPHQL_PATH)), { alsoClose: close });
