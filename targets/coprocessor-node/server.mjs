// Apollo Router external coprocessor (protocol version 1) for gqlbench's extensibility
// suite, written the way a Node user would: express 4 with express.json(), jsonwebtoken for
// HS256 and crypto.randomUUID() for the UUID v4s. The contract (endpoints, answers, counts)
// is targets/_coprocessors/CONTRACT.md. One process, express defaults kept (ETag,
// X-Powered-By): they are part of what this stack costs. Logs nothing per request.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import express from 'express';
import jwt from 'jsonwebtoken';
import { HOST, PORT, onShutdown, closeHttpServer } from '../_node/server-common.mjs';

const NAME = 'coprocessor-node';
const SECRET = process.env.GQLBENCH_JWT_SECRET || 'apollo';
// `body` of a refused request: a JSON string holding a GraphQL response, which the router
// sends to the client as it is.
const REJECT_BODY = JSON.stringify({ errors: [{ message: 'invalid token' }] });
const GUID_NAMES = Array.from({ length: 10 }, (_, i) => `guid-${i + 1}`);

const stats = { 'static-subgraph': 0, 'guid-response': 0, 'client-awareness': 0, rejected: 0 };

const badRequest = (message) => Object.assign(new Error(message), { status: 400 });
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

const app = express();

app.get('/health', (req, res) => res.type('text/plain').send('ok'));
app.get('/stats', (req, res) => res.json(stats));

// The router always sends application/json, but the contract's 400 is about the payload, so
// parse whatever the content type. An empty body would otherwise pass as `{}`.
const json = express.json({
  limit: '10mb',
  type: () => true,
  verify: (req, res, buf) => {
    if (buf.length === 0) throw badRequest('empty payload');
  },
});

// Wraps a stage handler: checks the payload is an object with a `headers` map (lower-case
// name -> array of strings), lets `change` edit the headers, answers the payload.
function stage(name, change) {
  return [
    json,
    (req, res, next) => {
      const payload = req.body;
      if (!isObject(payload)) return next(badRequest('payload is not a JSON object'));
      payload.headers ??= {};
      // Hive Router's payloads carry no `control` but need one back; Apollo's carry it.
      payload.control ??= 'continue';
      if (!isObject(payload.headers)) return next(badRequest('headers is not a JSON object'));
      stats[name]++;
      change(payload.headers, payload);
      res.json(payload);
    },
  ];
}

app.post('/static-subgraph', stage('static-subgraph', (headers) => {
  headers.source = ['coprocessor'];
}));

app.post('/guid-response', stage('guid-response', (headers) => {
  for (const name of GUID_NAMES) headers[name] = [randomUUID()];
}));

// The client's name and version from the token's claims, or null for a missing, malformed
// or badly signed token, or one without both claims as strings.
function clientOf(headers) {
  const value = headers.authentication?.[0];
  if (typeof value !== 'string' || !value.startsWith('Bearer ')) return null;
  let claims;
  try {
    claims = jwt.verify(value.slice('Bearer '.length), SECRET, { algorithms: ['HS256'] });
  } catch {
    return null;
  }
  const { client_name: name, client_version: version } = claims;
  return typeof name === 'string' && typeof version === 'string' ? { name, version } : null;
}

app.post('/client-awareness', stage('client-awareness', (headers, payload) => {
  const client = clientOf(headers);
  if (client) {
    headers['apollographql-client-name'] = [client.name];
    headers['apollographql-client-version'] = [client.version];
  } else {
    stats.rejected++;
    payload.control = { break: 401 };
    payload.body = REJECT_BODY;
  }
}));

// Unknown paths fall through to express's own 404. Errors (bad JSON, oversized bodies) are
// answered here because express's default error handler prints each one to stderr.
app.use((err, req, res, next) => {
  const status = err.status >= 400 && err.status < 600 ? err.status : 500;
  res.status(status).type('text/plain').send(status < 500 ? err.message : 'internal error');
});

const server = createServer(app);
server.on('error', (err) => {
  console.error(`${NAME}: server error:`, err);
  process.exit(1);
});
server.listen(PORT, HOST, () => {
  console.log(`ready: ${NAME} listening on http://${HOST}:${server.address().port} (node ${process.version}, pid ${process.pid})`);
});
onShutdown(NAME, () => closeHttpServer(server));
