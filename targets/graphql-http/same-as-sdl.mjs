// A code-first schema held to the suite's SDL: printed and sorted, the two must be equal
// (the Subscription type aside: graphql-http serves none), or the server refuses to start,
// naming the builder and the first line that differs. So a builder variant serves the
// schema its base serves, and what the two measure apart is how it was built.

import { buildSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { typeDefs } from '../_node/index.mjs';
import { SUBSCRIPTION_TYPES } from '../_node/subscriptions.mjs';

// The schema itself if it is the suite's SDL; else an error naming the first line that
// differs.
export function sameAsSdl(schema, builder) {
  const print = (s) => printSchema(lexicographicSortSchema(s)).split('\n');
  const want = print(buildSchema(typeDefs.replace(SUBSCRIPTION_TYPES, '')));
  const got = print(schema);
  const at = want.findIndex((line, i) => line !== got[i]);
  if (at >= 0 || got.length !== want.length) {
    const i = at >= 0 ? at : Math.min(want.length, got.length);
    throw new Error(
      `the ${builder} schema differs from the suite's SDL at line ${i + 1}: expected ${JSON.stringify(want[i])}, built ${JSON.stringify(got[i])}`,
    );
  }
  return schema;
}
