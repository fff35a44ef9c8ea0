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
import { work, workRounds } from './work.mjs';

const rounds = workRounds('GQLBENCH_INJECT_WORK');

if (rounds > 0) {
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    if (event === 'request') work(rounds);
    return emit.call(this, event, ...args);
  };
}
