// Injected work, preloaded into any Node server with NODE_OPTIONS=--import=<this file>:
// GQLBENCH_INJECT_WORK=N adds N rounds of a xorshift step (about 1 ns each once compiled)
// of CPU work before every HTTP request the process's servers handle. It turns a real
// server (Apollo Server, Yoga, Mercurius, ...) into a calibration target whose cost per
// request can be raised by a known amount: `gqlbench calibrate --sensitivity --ab` runs the
// same server with N and with N raised to cost +2%, +5%, +10% and checks what `gqlbench ab`
// finds (docs/performance.md). Without the variable (or 0) it does nothing.
//
// It wraps `http.Server.prototype.emit` for 'request' events only, so every framework built
// on node:http (directly or through Fastify, Express, ...) pays the work once per request,
// before its own handler runs.

import http from 'node:http';

const rounds = parseRounds(process.env.GQLBENCH_INJECT_WORK);

function parseRounds(v) {
  if (v === undefined || v === '') return 0;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0 || n > 1e10) {
    console.error(`invalid GQLBENCH_INJECT_WORK ${JSON.stringify(v)}: expected a whole number of work rounds from 0 to 10000000000`);
    process.exit(2);
  }
  return n;
}

// The result is kept in `sink` so the loop cannot be optimised away.
let sink = 1;
function work(n) {
  let x = sink | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  sink = x;
}

if (rounds > 0) {
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    if (event === 'request') work(rounds);
    return emit.call(this, event, ...args);
  };
}
