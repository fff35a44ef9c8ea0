// A k6 script written by `gqlbench export k6` (see README.md beside it). It reproduces one
// gqlbench scenario's load and checks every response as gqlbench does: HTTP 200, a JSON
// object without `errors`, and `data` equal to the expected answer of the request's case.
// The scenario itself is the PLAN object below; the code is the same for every export.
import http from 'k6/http';
import { check, sleep } from 'k6';
import exec from 'k6/execution';

const PLAN = /*GQLBENCH_PLAN*/ null;

export const options = PLAN.options;

// GQLBENCH_URL points the same script at another endpoint (k6 run -e GQLBENCH_URL=...).
const URL = __ENV.GQLBENCH_URL || PLAN.url;

// Operations by weight: each operation's index repeated `weight` times, walked in order,
// so the mix is exact over every full turn of the table.
const TABLE = [];
PLAN.operations.forEach((op, i) => {
  for (let w = 0; w < op.weight; w++) TABLE.push(i);
});

const HEADERS = Object.assign({ 'content-type': 'application/json' }, PLAN.headers);

// Deep equality of two JSON values; objects compare by keys whatever their order.
function same(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !same(a[k], b[k])) return false;
  return true;
}

export default function () {
  const n = exec.scenario.iterationInTest;
  const op = PLAN.operations[TABLE[n % TABLE.length]];
  const c = op.cases[Math.floor(n / TABLE.length) % op.cases.length];
  let headers = HEADERS;
  if (PLAN.unique_header) {
    headers = Object.assign({}, HEADERS, { [PLAN.unique_header]: `${exec.vu.idInTest}-${n}` });
  }
  // A case with a unique number sends one no other request sent (gqlbench's `unique`):
  // iterations count per scenario, so the measured scenario's numbers start past the
  // warm-up's, and every number is above the case's own (which a check may have sent).
  let body = c.body;
  if (c.unique) {
    const offset = exec.scenario.name === PLAN.measured_scenario ? PLAN.unique_offset : 0;
    body = c.unique.before + String(c.unique.from + 1 + offset + n) + c.unique.after;
  }
  const res = http.post(URL, body, { headers, timeout: PLAN.timeout, tags: { case: c.name } });
  let doc = null;
  try {
    doc = JSON.parse(res.body);
  } catch (e) {
    doc = null;
  }
  const obj = doc !== null && typeof doc === 'object' && !Array.isArray(doc);
  check(
    res,
    {
      'status is 200': (r) => r.status === 200,
      'no errors': () =>
        obj &&
        (doc.errors === undefined ||
          doc.errors === null ||
          (Array.isArray(doc.errors) && doc.errors.length === 0)),
      'data as expected': () => obj && doc.data !== undefined && doc.data !== null && same(doc.data, c.data),
    },
    { case: c.name },
  );
  if (PLAN.think_time_s > 0) sleep(PLAN.think_time_s);
}
