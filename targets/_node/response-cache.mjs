// Whether this server runs with its response cache on, and for how long it keeps an
// answer: the response-cache variants (targets/*-cache) set GQLBENCH_RESPONSE_CACHE=1, and
// gqlbench gives every target of a response-cache scenario GQLBENCH_CACHE_TTL_MS (the
// scenario's `ttl`, whole seconds: Apollo Server's cache hints are in seconds). One TTL for
// every cache, so hit ratios and staleness compare like with like.

// null when the cache is off; { ttlMs } when on. Exits (2) when it is on without a usable
// time to live: a cache that silently fell back to its own default would be measured as
// something it is not.
export function responseCacheFromEnv(name, env = process.env) {
  if (env.GQLBENCH_RESPONSE_CACHE !== '1') return null;
  const ttlMs = Number(env.GQLBENCH_CACHE_TTL_MS);
  if (!Number.isInteger(ttlMs) || ttlMs < 1000 || ttlMs % 1000 !== 0) {
    console.error(
      `${name}: GQLBENCH_RESPONSE_CACHE=1 needs GQLBENCH_CACHE_TTL_MS, a whole number of seconds in ms (got ${JSON.stringify(env.GQLBENCH_CACHE_TTL_MS)}); a response-cache scenario's [response_cache] ttl sets it`,
    );
    process.exit(2);
  }
  console.log(`${name}: response cache on, TTL ${ttlMs} ms`);
  return { ttlMs };
}
