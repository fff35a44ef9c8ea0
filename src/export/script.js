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

// Operations by weight: operation i owns a share weight_i / total of [0, 1), and iteration
// n of the test takes the operation whose share holds frac(n × φ) (φ = 0.618..., the golden
// ratio's fraction). n is k6's exec.scenario.iterationInTest, unique across the pods of a
// k6-operator TestRun, where a pod of p gets every p-th n: frac(n × φ) over any such stride
// still spreads evenly over [0, 1) (p × φ is irrational), so every pod sends the mix, and
// over any run of iterations the mix is close to exact. A table walked by `n % length`
// would alias with the stride (a 4:1 mix on 5 pods gave four pods only the first operation).
const GOLDEN = 0.6180339887498949;
const CUMULATIVE = [];
let TOTAL_WEIGHT = 0;
PLAN.operations.forEach((op) => {
  TOTAL_WEIGHT += op.weight;
  CUMULATIVE.push(TOTAL_WEIGHT);
});

function operationOf(n) {
  const x = ((n * GOLDEN) % 1) * TOTAL_WEIGHT;
  let i = 0;
  while (i < CUMULATIVE.length - 1 && x >= CUMULATIVE[i]) i++;
  return i;
}

// Each operation's cases in turn, as gqlbench's engine sends them: every send of an
// operation takes its next case, so no case goes out in a burst of identical requests
// (which a cache or request deduplication would favour). Counted per VU (each VU has its
// own copy of this module), each VU starting at its own point of the list (spread by the
// same golden-ratio step), so that VUs do not trail each other through the same cases.
let NEXT_CASE = null;

function nextCase(i) {
  if (NEXT_CASE === null) {
    const start = (exec.vu.idInTest * GOLDEN) % 1;
    NEXT_CASE = PLAN.operations.map((op) => Math.floor(start * op.cases.length));
  }
  const cases = PLAN.operations[i].cases;
  const c = cases[NEXT_CASE[i]];
  NEXT_CASE[i] = (NEXT_CASE[i] + 1) % cases.length;
  return c;
}

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
  const c = nextCase(operationOf(n));
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
