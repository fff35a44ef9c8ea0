// Gateway customizations for the extensibility suite, as Hive Gateway plugins: the same work
// the Apollo Router variants do by config, Rhai or coprocessor (targets/_coprocessors/
// CONTRACT.md), so users see what extending each gateway costs. server.mjs picks one by
// GQLBENCH_GATEWAY_PLUGIN; unset (the plain hive-gateway target), none is loaded.
//
// - subgraph-header: `source: plugin` on every subgraph request (onFetch);
// - subgraph-header-coprocessor: the subgraph request's headers go to an Apollo Router
//   style coprocessor (stage SubgraphRequest, $GQLBENCH_COPROCESSOR_URL/static-subgraph),
//   whose answer's headers are sent on;
// - guid-headers: guid-1..guid-10, fresh UUIDs, on every client response (onResponse);
// - client-awareness: the HS256 JWT in `authentication` verified with node:crypto (secret
//   $GQLBENCH_JWT_SECRET, default "apollo"); its claims client_name and client_version sent
//   to every subgraph as apollographql-client-name and -version; a bad token: 401.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

function withHeaders(options, extra) {
  const headers = { ...Object.fromEntries(new Headers(options.headers ?? {})), ...extra };
  return { ...options, headers };
}

const subgraphHeader = () => ({
  onFetch({ options, setOptions }) {
    setOptions(withHeaders(options, { source: 'plugin' }));
  },
});

function subgraphHeaderCoprocessor() {
  const base = process.env.GQLBENCH_COPROCESSOR_URL;
  if (!base) throw new Error('GQLBENCH_COPROCESSOR_URL is not set');
  const endpoint = `${base}/static-subgraph`;
  let id = 0;
  return {
    async onFetch({ url, options, setOptions }) {
      const headers = {};
      for (const [k, v] of new Headers(options.headers ?? {})) headers[k] = [v];
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // As the routers' coprocessor `timeout` in this suite's configs: 2 s.
        signal: AbortSignal.timeout(2000),
        body: JSON.stringify({
          version: 1,
          stage: 'SubgraphRequest',
          control: 'continue',
          id: String(++id),
          headers,
          uri: url,
          method: 'POST',
        }),
      });
      if (!res.ok) throw new Error(`coprocessor answered HTTP ${res.status}`);
      const answer = await res.json();
      const out = {};
      for (const [k, v] of Object.entries(answer.headers ?? {})) {
        out[k] = Array.isArray(v) ? v.join(', ') : String(v);
      }
      setOptions({ ...options, headers: out });
    },
  };
}

const guidHeaders = () => ({
  onResponse({ response }) {
    for (let i = 1; i <= 10; i++) response.headers.set(`guid-${i}`, randomUUID());
  },
});

function verifyHs256(token, secret) {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url'));
    if (header.alg !== 'HS256') return null;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url'));
    if (typeof claims.client_name !== 'string' || typeof claims.client_version !== 'string') {
      return null;
    }
    return claims;
  } catch {
    return null;
  }
}

function clientAwareness() {
  const secret = process.env.GQLBENCH_JWT_SECRET ?? 'apollo';
  const clients = new WeakMap();
  return {
    onRequest({ request, fetchAPI, endResponse }) {
      const auth = request.headers.get('authentication') ?? '';
      const claims = auth.startsWith('Bearer ') ? verifyHs256(auth.slice(7), secret) : null;
      if (!claims) {
        endResponse(
          new fetchAPI.Response(JSON.stringify({ errors: [{ message: 'invalid token' }] }), {
            status: 401,
            headers: { 'content-type': 'application/json' },
          }),
        );
        return;
      }
      clients.set(request, claims);
    },
    onFetch({ context, options, setOptions }) {
      const claims = context?.request && clients.get(context.request);
      if (!claims) return;
      setOptions(
        withHeaders(options, {
          'apollographql-client-name': claims.client_name,
          'apollographql-client-version': claims.client_version,
        }),
      );
    },
  };
}

const PLUGINS = {
  'subgraph-header': subgraphHeader,
  'subgraph-header-coprocessor': subgraphHeaderCoprocessor,
  'guid-headers': guidHeaders,
  'client-awareness': clientAwareness,
  // Loads nothing: a variant run with this claims its work and must be caught skipping it.
  none: () => ({}),
};

/** The plugins GQLBENCH_GATEWAY_PLUGIN names (none when unset). */
export function selectedPlugins() {
  const name = process.env.GQLBENCH_GATEWAY_PLUGIN;
  if (!name) return [];
  const make = PLUGINS[name];
  if (!make) {
    throw new Error(
      `GQLBENCH_GATEWAY_PLUGIN=${name} is unknown; known: ${Object.keys(PLUGINS).join(', ')}`,
    );
  }
  return [make()];
}
