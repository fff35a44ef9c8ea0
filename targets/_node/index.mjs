// The one schema every Node target serves: both workloads (social + authors) merged into a
// single `type Query`, so one running server answers every operation of every scenario.
// The Subscription type is in every schema too, but only the servers with a subscription
// transport (Apollo, Yoga, Mercurius) add its resolver (subscriptions.mjs).
//
// Plain JS only (see social.mjs for why): each target builds the executable schema with its
// own graphql copy, either from { typeDefs, resolvers } (Apollo, Yoga, Mercurius) or with
// graphql-js `buildSchema(typeDefs)` followed by `attachResolvers(schema, resolvers)`.

import { SOCIAL_TYPES, SOCIAL_QUERY_FIELDS, SOCIAL_MUTATION_FIELDS, socialResolvers } from './social.mjs';
import { AUTHORS_TYPES, AUTHORS_QUERY_FIELDS, authorsResolvers } from './authors.mjs';
import { SUBSCRIPTION_TYPES } from './subscriptions.mjs';
import { countExecution } from './counters.mjs';

export const WORKLOADS = ['social', 'authors'];

export const typeDefs = `type Query {${SOCIAL_QUERY_FIELDS}${AUTHORS_QUERY_FIELDS}}
type Mutation {${SOCIAL_MUTATION_FIELDS}}
${SOCIAL_TYPES}${AUTHORS_TYPES}${SUBSCRIPTION_TYPES}`;

// The maximum operation depth the servers with a limit are configured with, each in its own
// way (their target.toml says how). scenarios/queries/social/deep.graphql sits exactly at it
// and deep-11.graphql one level above, both as graphql-depth-limit counts depth.
export const DEPTH_LIMIT = 10;

// Merge per-type resolver maps; a field defined twice is a programming error, so fail loudly.
export function mergeResolvers(...maps) {
  const out = {};
  for (const map of maps) {
    for (const [type, fields] of Object.entries(map)) {
      out[type] ??= {};
      for (const [field, fn] of Object.entries(fields)) {
        if (field in out[type]) throw new Error(`resolver ${type}.${field} defined twice`);
        out[type][field] = fn;
      }
    }
  }
  return out;
}

// A resolver map whose every root Query field counts one execution when resolved
// (counters.mjs): a response cache's hits are the requests that never get here. One
// increment per request costs nothing measurable, so every server counts, cached or not,
// from memory or from PostgreSQL (db.mjs).
export function countingRootFields(map) {
  const query = {};
  for (const [name, fn] of Object.entries(map.Query ?? {})) {
    query[name] = (...args) => {
      countExecution();
      return fn(...args);
    };
  }
  return { ...map, Query: query };
}

export const resolvers = countingRootFields(mergeResolvers(socialResolvers, authorsResolvers));

// For servers that take a bare graphql-js GraphQLSchema (graphql-jit, the baseline, the
// expected-answer generator): set `field.resolve` in place. Works on any graphql 15/16/17
// schema object without importing graphql here. Throws on a resolver for an unknown
// type/field, so a typo cannot silently fall back to the default resolver.
export function attachResolvers(schema, resolverMap = resolvers) {
  for (const [typeName, fields] of Object.entries(resolverMap)) {
    const type = schema.getType(typeName);
    if (!type || typeof type.getFields !== 'function') throw new Error(`no object type ${typeName}`);
    const defs = type.getFields();
    for (const [fieldName, fn] of Object.entries(fields)) {
      if (!defs[fieldName]) throw new Error(`no field ${typeName}.${fieldName}`);
      defs[fieldName].resolve = fn;
    }
  }
  return schema;
}
