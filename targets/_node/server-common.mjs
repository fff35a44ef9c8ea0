// What every Node target shares around its server: where to listen, the "ready" line, a
// prompt shutdown on SIGTERM/SIGINT, and (for the bare node:http targets) body reading.
//
// gqlbench stops a target by signalling its process group (SIGTERM, then SIGKILL after a
// grace period). A target that lingers on keep-alive connections would eat into the next
// trial's time and be SIGKILLed (losing the gc-probe's final write), so shutdown closes
// every connection and exits within SHUTDOWN_GRACE_MS at the latest.

import { readFileSync } from 'node:fs';

export const HOST = process.env.HOST || '127.0.0.1';
export const PORT = parsePort(process.env.PORT);
export const GRAPHQL_PATH = '/graphql';
const SHUTDOWN_GRACE_MS = 500;

function parsePort(v) {
  if (v === undefined || v === '') return 4000;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`invalid PORT ${JSON.stringify(v)}`);
    process.exit(2);
  }
  return n;
}

// One line on stdout once listening; harmless to parse, but gqlbench's readiness check is a
// real `{ __typename }` query, not this line.
export function logReady(name, port = PORT) {
  console.log(`ready: ${name} listening on http://${HOST}:${port}${GRAPHQL_PATH} (${runtime()}, pid ${process.pid})`);
}

// Bun and Deno also answer process.version (with the Node version they are compatible with),
// so ask for their own first.
function runtime() {
  if (globalThis.Bun) return `bun ${globalThis.Bun.version}`;
  if (globalThis.Deno) return `deno ${globalThis.Deno.version.deno}`;
  return `node ${process.version}`;
}

// Register `close` (may be async) to run on SIGTERM/SIGINT, then exit 0; exit anyway after
// the grace period if close hangs. A second signal exits at once.
export function onShutdown(name, close) {
  let stopping = false;
  const stop = (signal) => {
    if (stopping) process.exit(0);
    stopping = true;
    const timer = setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS);
    timer.unref();
    Promise.resolve()
      .then(close)
      .catch((err) => console.error(`${name}: error while closing after ${signal}:`, err))
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

// Close a node:http server including idle and active keep-alive sockets (Node >= 18.2).
export function closeHttpServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

// Listen a node:http server on HOST:PORT, print the ready line, install shutdown handling.
// `alsoClose` (optional, may be async) runs on shutdown alongside closing the server: for
// what the HTTP server does not own, such as upgraded WebSockets (server.close() waits for
// them but closeAllConnections() does not end them) or a database pool.
export function serveHttp(name, server, { alsoClose } = {}) {
  server.on('error', (err) => {
    console.error(`${name}: server error:`, err);
    process.exit(1);
  });
  server.listen(PORT, HOST, () => logReady(name, server.address().port));
  onShutdown(name, () => Promise.all([alsoClose?.(), closeHttpServer(server)]));
  return server;
}

// Listen a Fastify app on HOST:PORT (exit 1 naming `name` if it cannot), print the ready
// line, install shutdown handling: the app closed, and `alsoClose` (optional, may be async)
// beside it, as serveHttp does for node:http.
export async function serveFastify(name, app, { alsoClose } = {}) {
  try {
    await app.listen({ port: PORT, host: HOST });
  } catch (err) {
    console.error(`${name}: failed to listen:`, err);
    process.exit(1);
  }
  logReady(name, app.server.address().port);
  onShutdown(name, () => Promise.all([app.close(), alsoClose?.()]));
}

// GQLBENCH_BATCHING=<n> (a scenario's [batching]): the server turns on its own batching of
// operations sent as a JSON array, for batches of at least n; unset (every other scenario)
// it stays off, each server's default. Returns n, or 0 when off.
export function batchingFromEnv() {
  const v = process.env.GQLBENCH_BATCHING;
  if (v === undefined || v === '') return 0;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`invalid GQLBENCH_BATCHING ${JSON.stringify(v)}: a whole number of operations per batch`);
    process.exit(2);
  }
  return n;
}

// Yoga's (and Hive Gateway's) option for it: its default limit is 10 per request.
export function yogaBatching() {
  const n = batchingFromEnv();
  return n ? { batching: { limit: n } } : {};
}

// GQLBENCH_INCREMENTAL=1 (a scenario's [incremental]): the server turns on incremental
// delivery (@defer/@stream, answered in multipart/mixed parts); unset, it stays as shipped.
export function incrementalFromEnv() {
  return process.env.GQLBENCH_INCREMENTAL === '1';
}

// GQLBENCH_APQ=1 (a scenario's [persisted]): the server turns on automatic persisted
// queries where they are off by default; unset, it stays as shipped.
export function apqFromEnv() {
  return process.env.GQLBENCH_APQ === '1';
}

// GQLBENCH_PERSISTED_DOCUMENTS=<path> (a [persisted] protocol = "documents" scenario): the
// manifest, in Apollo's persisted query manifest format, of the documents clients send by id
// (`{"documentId": ..., "variables": ...}`). Returns a Map of id -> document, or null when
// unset (every other scenario: the server stays as shipped). A manifest that cannot be read
// stops the server with the reason, before it says it is ready.
export function persistedDocumentsFromEnv() {
  const path = process.env.GQLBENCH_PERSISTED_DOCUMENTS;
  if (!path) return null;
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8'));
    return new Map(manifest.operations.map((op) => [op.id, op.body]));
  } catch (e) {
    console.error(`cannot load the persisted documents manifest ${path}: ${e.message}`);
    process.exit(2);
  }
}

// The id a request names, read from `documentId` (the persisted-documents form gqlbench
// sends), or null.
export function documentIdOf(params) {
  return typeof params?.documentId === 'string' ? params.documentId : null;
}

// Read a request body as a UTF-8 string (for the targets without a framework).
export const MAX_BODY_BYTES = 1 << 20;
export function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error('request body too large'), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// A JSON reply with an explicit length (no chunked encoding), the same framing the
// frameworks use for complete responses.
export function sendJson(res, status, body) {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': buf.length });
  res.end(buf);
}

export function sendError(res, status, message) {
  sendJson(res, status, JSON.stringify({ errors: [{ message }] }));
}
