// What the npm gateway targets share: where the supergraph and the subgraphs are.
// No dependencies (each gateway imports it by relative path, like ../_node/).
//
// The runner (docs/federation.md) passes GQLBENCH_SUPERGRAPH (the supergraph with the real
// subgraph URLs of this run), GQLBENCH_SUBGRAPHS (`name=url,...`, every subgraph of the
// graph in order: the demo's four or the wide graph's twelve) and, per subgraph,
// GQLBENCH_SUBGRAPH_<NAME>_URL. Without them (a run by hand) the demo graph's committed
// supergraph is used, whose placeholder URLs 127.0.0.1:4201-4204 match
//   gqlbench-subgraphs serve --ports accounts=4201,products=4202,reviews=4203,inventory=4204

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const COMMITTED_SUPERGRAPH = resolve(here, '..', '..', 'scenarios', 'federation', 'supergraph.graphql');

export const SUBGRAPHS = ['accounts', 'products', 'reviews', 'inventory'];
const PLACEHOLDER_PORT = { accounts: 4201, products: 4202, reviews: 4203, inventory: 4204 };

export function supergraphPath() {
  const p = process.env.GQLBENCH_SUPERGRAPH;
  if (p) return p;
  console.error(`GQLBENCH_SUPERGRAPH not set: using ${COMMITTED_SUPERGRAPH} (subgraphs on 127.0.0.1:4201-4204)`);
  return COMMITTED_SUPERGRAPH;
}

export function readSupergraph() {
  const p = supergraphPath();
  try {
    return readFileSync(p, 'utf8');
  } catch (err) {
    console.error(`cannot read the supergraph ${p}: ${err.message}`);
    process.exit(1);
  }
}

// [{ name, url }] of every subgraph of the run's graph, in the runner's order; by hand, the
// demo's four (accounts, products, reviews, inventory) at their placeholder ports.
export function subgraphUrls() {
  const list = process.env.GQLBENCH_SUBGRAPHS;
  if (list) {
    return list.split(',').map((item) => {
      const at = item.indexOf('=');
      if (at <= 0) {
        console.error(`GQLBENCH_SUBGRAPHS: '${item}' is not name=url`);
        process.exit(1);
      }
      return { name: item.slice(0, at), url: item.slice(at + 1) };
    });
  }
  return SUBGRAPHS.map((name) => {
    const v = process.env[`GQLBENCH_SUBGRAPH_${name.toUpperCase()}_URL`];
    return { name, url: v || `http://127.0.0.1:${PLACEHOLDER_PORT[name]}/graphql` };
  });
}
