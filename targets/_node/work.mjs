// A fixed amount of CPU work per request, the same on every request: N rounds of a
// xorshift step (about 1 ns each once compiled). Read from an environment variable by
// node-baseline (GQLBENCH_WORK) and by the injected-work preload (GQLBENCH_INJECT_WORK),
// the calibration targets of `gqlbench calibrate --sensitivity`.

// The rounds `name` asks for (0 when unset); a value that is not a whole number from 0 to
// 10^10 ends the process with exit 2, naming the variable.
export function workRounds(name) {
  const v = process.env[name];
  if (v === undefined || v === '') return 0;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0 || n > 1e10) {
    console.error(`invalid ${name} ${JSON.stringify(v)}: expected a whole number of work rounds from 0 to 10000000000`);
    process.exit(2);
  }
  return n;
}

// The result is kept in `sink` so the loop cannot be optimised away.
let sink = 1;
export function work(rounds) {
  let x = sink | 1;
  for (let i = 0; i < rounds; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  sink = x;
}
