// graphyne-server on micro 9 (seed 003's "graphyne-server-micro"): micro's server with
// graphyne's handler as its function, as graphyne's README shows (it answers by itself).
import micro from 'micro';
import { GRAPHQL_PATH, serveHttp } from '../_node/server-common.mjs';
import { graphyneHandler } from './gql.mjs';

const { handler, close } = await graphyneHandler('graphyne-server-micro');
serveHttp('graphyne-server-micro', micro(handler(GRAPHQL_PATH)), { alsoClose: close });
