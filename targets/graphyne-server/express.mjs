// graphyne-server on Express 4 (seed 003's "graphyne-server-express"): its handler mounted
// with app.all, as graphyne's README shows; the body is read by graphyne, not by Express.
import http from 'node:http';
import express from 'express';
import { GRAPHQL_PATH, serveHttp } from '../_node/server-common.mjs';
import { graphyneHandler } from './gql.mjs';

const { handler, close } = await graphyneHandler('graphyne-server-express');
const app = express();
app.disable('x-powered-by');
app.all(GRAPHQL_PATH, handler());
serveHttp('graphyne-server-express', http.createServer(app), { alsoClose: close });
