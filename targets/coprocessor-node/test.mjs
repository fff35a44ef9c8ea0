// Checks server.mjs against targets/_coprocessors/CONTRACT.md: starts it as a child process
// on a port of its own choosing (PORT=0, read back from its ready line) and calls every
// endpoint. Run with `node --test test.mjs` after `npm ci`.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import jwt from 'jsonwebtoken';

const SECRET = 'test-secret';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const REJECT_BODY = '{"errors":[{"message":"invalid token"}]}';

let child;
let base;
// Calls per endpoint made by the tests below, to compare with /stats at the end.
const made = { 'static-subgraph': 0, 'guid-response': 0, 'client-awareness': 0, rejected: 0 };

before(async () => {
  child = spawn(process.execPath, [fileURLToPath(new URL('server.mjs', import.meta.url))], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', GQLBENCH_JWT_SECRET: SECRET, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // PORT=0 lets the OS pick a free port; the ready line says which.
  base = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ready line within 5s: ${out}`)), 5000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/listening on (http:\/\/[\d.]+:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before ready: ${out}`)));
  });
});

after(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
});

function payload(stage, headers, extra = {}) {
  return {
    version: 1,
    stage,
    control: 'continue',
    id: '1b19c05fdafc521016df33148ad63c1b',
    headers,
    context: { entries: { 'apollo::supergraph::operation_name': 'Q', nested: { a: [1, 2, null] } } },
    method: 'POST',
    ...extra,
  };
}

async function post(path, body, contentType = 'application/json') {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
}

const token = (claims, secret = SECRET, options = {}) => jwt.sign(claims, secret, { algorithm: 'HS256', ...options });

test('GET /health answers 200 ok', async () => {
  const res = await fetch(`${base}/health`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'ok');
});

test('static-subgraph adds source: coprocessor and changes nothing else', async () => {
  const sent = payload('SubgraphRequest', { 'content-type': ['application/json'], 'x-multi': ['a', 'b'] }, {
    serviceName: 'products',
    uri: 'http://127.0.0.1:4001/graphql',
    subgraphRequestId: 'abc',
    body: { query: '{ me { id } }', variables: { n: 1 } },
  });
  const res = await post('/static-subgraph', sent);
  made['static-subgraph']++;
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, { ...sent, headers: { ...sent.headers, source: ['coprocessor'] } });
});

test('static-subgraph accepts a payload without headers', async () => {
  const { headers, ...sent } = payload('SubgraphRequest', {});
  const res = await post('/static-subgraph', sent);
  made['static-subgraph']++;
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, { ...sent, headers: { source: ['coprocessor'] } });
});

test('guid-response sets ten distinct UUID v4s, fresh on every call', async () => {
  const sent = payload('RouterResponse', { 'content-type': ['application/json'] }, { statusCode: 200 });
  const seen = new Set();
  for (let call = 0; call < 2; call++) {
    const res = await post('/guid-response', sent);
    made['guid-response']++;
    assert.equal(res.status, 200);
    const { headers, ...rest } = res.json;
    const { headers: sentHeaders, ...sentRest } = sent;
    assert.deepEqual(rest, sentRest);
    assert.deepEqual(headers['content-type'], ['application/json']);
    for (let i = 1; i <= 10; i++) {
      const values = headers[`guid-${i}`];
      assert.equal(values.length, 1);
      assert.match(values[0], UUID_V4);
      seen.add(values[0]);
    }
    assert.equal(Object.keys(headers).length, 11);
  }
  assert.equal(seen.size, 20);
});

test('client-awareness sets client name and version from a good token', async () => {
  const sent = payload('RouterRequest', {
    authentication: [`Bearer ${token({ client_name: 'web', client_version: '1.2.3', sub: 'u1' })}`],
    accept: ['application/json'],
  });
  const res = await post('/client-awareness', sent);
  made['client-awareness']++;
  assert.equal(res.status, 200);
  assert.deepEqual(res.json, {
    ...sent,
    headers: { ...sent.headers, 'apollographql-client-name': ['web'], 'apollographql-client-version': ['1.2.3'] },
  });
});

const refused = {
  'a badly signed token': () => ({ authentication: [`Bearer ${token({ client_name: 'web', client_version: '1' }, 'wrong')}`] }),
  'a missing header': () => ({ accept: ['application/json'] }),
  'a token without the claims': () => ({ authentication: [`Bearer ${token({ sub: 'u1' })}`] }),
  'a token with only one claim': () => ({ authentication: [`Bearer ${token({ client_name: 'web' })}`] }),
  'an expired token': () => ({ authentication: [`Bearer ${token({ client_name: 'web', client_version: '1' }, SECRET, { expiresIn: -10 })}`] }),
  'an unsigned token (alg none)': () => ({ authentication: [`Bearer ${jwt.sign({ client_name: 'web', client_version: '1' }, null, { algorithm: 'none' })}`] }),
  'a malformed token': () => ({ authentication: ['Bearer not.a.jwt'] }),
  'no Bearer prefix': () => ({ authentication: [token({ client_name: 'web', client_version: '1' })] }),
};

for (const [what, headers] of Object.entries(refused)) {
  test(`client-awareness answers a 401 break for ${what}`, async () => {
    const sent = payload('RouterRequest', headers());
    const res = await post('/client-awareness', sent);
    made['client-awareness']++;
    made.rejected++;
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { ...sent, control: { break: 401 }, body: REJECT_BODY });
  });
}

test('a payload that is not JSON answers 400', async () => {
  for (const path of ['/static-subgraph', '/guid-response', '/client-awareness']) {
    assert.equal((await post(path, '{"version":1,')).status, 400, `${path}: truncated JSON`);
    assert.equal((await post(path, 'hello', 'text/plain')).status, 400, `${path}: text`);
    assert.equal((await post(path, '')).status, 400, `${path}: empty body`);
    assert.equal((await post(path, '[1,2]')).status, 400, `${path}: an array`);
  }
});

test('unknown paths answer 404', async () => {
  assert.equal((await fetch(`${base}/nope`)).status, 404);
  assert.equal((await post('/nope', payload('RouterRequest', {}))).status, 404);
  assert.equal((await fetch(`${base}/static-subgraph`)).status, 404);
});

test('GET /stats counts the calls served and the tokens rejected', async () => {
  const res = await fetch(`${base}/stats`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), made);
  assert.equal(made.rejected, Object.keys(refused).length);
});
