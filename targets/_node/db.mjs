// The "social" workload served from PostgreSQL instead of memory (workload "social-db"):
// the same schema and byte-identical answers, two resolver strategies.
//
//   GQLBENCH_RESOLVERS     unset: the in-memory resolvers, nothing here is loaded
//                          naive: one SQL query per resolved field (the N+1 pattern)
//                          dataloader: per-request DataLoaders, one `= ANY($1)` query per batch
//   GQLBENCH_DATABASE_URL  e.g. postgres://gqlbench@127.0.0.1:54321/gqlbench
//   GQLBENCH_DB_POOL       pg.Pool max (default 20)
//
// gqlbench creates and fills the tables (users, posts, comments, followers, trending) with
// the values of social.mjs. The packages (pg, dataloader) are the target's own and are
// passed in by a loader function, so that this folder stays free of node_modules and a
// target in memory mode never even loads them (start-up time and memory stay as they were).
//
// Errors: a failing query rejects its resolver, so the server reports a GraphQL error for
// that field; an idle connection that dies (database stopped mid-run) is logged, never
// thrown, so the process survives and recovers once the database is back.

import { ME_USER, TRENDING_DEFAULT_LIMIT, computedResolvers } from './social.mjs';
import { authorsResolvers } from './authors.mjs';
import { countingRootFields, mergeResolvers, resolvers as memoryResolvers } from './index.mjs';

export const RESOLVER_MODES = ['naive', 'dataloader'];
export const DEFAULT_POOL_SIZE = 20;
// A database that accepts connections but never answers would otherwise hang requests
// forever; 10 s is far above any wait for a pooled connection in a valid run.
const CONNECT_TIMEOUT_MS = 10_000;
const MAX_INT = 2_147_483_647;

// The data source chosen by the environment: { mode, resolvers, makeContext, close }.
// makeContext is undefined unless the mode needs per-request state (then each server must
// call it once per GraphQL request through its own context mechanism). `load` returns the
// target's { pg, DataLoader } (called only in a database mode).
export async function dataSourceFromEnv({ load, name = 'target', env = process.env }) {
  const config = dbConfigFromEnv(env);
  if (config === null) {
    return { mode: 'memory', resolvers: memoryResolvers, makeContext: undefined, close: async () => {} };
  }
  const { pg, DataLoader } = await load();
  const pool = createPool(pg, config, name);
  const social = config.mode === 'naive' ? naiveResolvers(pool) : dataloaderResolvers(pool);
  let ended = null;
  console.log(`${name}: ${config.mode} resolvers on PostgreSQL (pool max ${config.poolSize})`);
  return {
    mode: config.mode,
    resolvers: countingRootFields(mergeResolvers(social, computedResolvers, authorsResolvers)),
    makeContext: config.mode === 'dataloader' ? () => ({ [LOADERS]: createLoaders(pool, DataLoader) }) : undefined,
    // pool.end() throws when called twice; shutdown may be reached from two signals.
    close: () => (ended ??= pool.end().catch((err) => console.error(`${name}: closing the pool:`, err))),
  };
}

// null when GQLBENCH_RESOLVERS is unset; exits (2) on a bad value, since a run that silently
// fell back to memory would report the wrong thing.
export function dbConfigFromEnv(env = process.env) {
  const mode = env.GQLBENCH_RESOLVERS;
  if (mode === undefined || mode === '') return null;
  const fail = (message) => {
    console.error(message);
    process.exit(2);
  };
  if (!RESOLVER_MODES.includes(mode)) fail(`invalid GQLBENCH_RESOLVERS ${JSON.stringify(mode)}: expected ${RESOLVER_MODES.join(' or ')}`);
  const url = env.GQLBENCH_DATABASE_URL;
  if (!url) fail('GQLBENCH_RESOLVERS is set but GQLBENCH_DATABASE_URL is not');
  let poolSize = DEFAULT_POOL_SIZE;
  if (env.GQLBENCH_DB_POOL !== undefined && env.GQLBENCH_DB_POOL !== '') {
    poolSize = Number(env.GQLBENCH_DB_POOL);
    if (!Number.isInteger(poolSize) || poolSize < 1) fail(`invalid GQLBENCH_DB_POOL ${JSON.stringify(env.GQLBENCH_DB_POOL)}: expected a whole number above 0`);
  }
  return { mode, url, poolSize };
}

function createPool(pg, { url, poolSize }, name) {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: `gqlbench-${name}`,
  });
  // Without a listener, an error on an idle client (e.g. the server was stopped) is an
  // uncaught 'error' event and kills the process. One line per second at most: a stopped
  // database makes every idle connection fail at once.
  let lastLog = 0;
  pool.on('error', (err) => {
    const now = Date.now();
    if (now - lastLog < 1000) return;
    lastLog = now;
    console.error(`${name}: idle database connection failed: ${err.message}`);
  });
  return pool;
}

// ---------------------------------------------------------------------------------------
// Rows to the objects social.mjs builds in memory (same fields, same id strings, the same
// ISO timestamps: pg returns timestamptz as a Date with millisecond precision, which is all
// the stored values have).

const USER_COLUMNS = 'u.idx, u.first_name, u.last_name, u.email, u.created_at';
const POST_COLUMNS = 'p.idx, p.author_idx, p.pos, p.title, p.content, p.published_at, p.view_count';
const COMMENT_COLUMNS = 'c.idx, c.post_idx, c.pos, c.text, c.author_idx';

function toUser(r) {
  return {
    index: r.idx,
    id: `bench-user-${r.idx}`,
    name: `${r.first_name} ${r.last_name}`,
    email: r.email,
    firstName: r.first_name,
    lastName: r.last_name,
    createdAt: r.created_at.toISOString(),
  };
}

function toPost(r) {
  return {
    index: r.idx,
    id: `post-${r.idx}`,
    title: r.title,
    content: r.content,
    publishedAt: r.published_at.toISOString(),
    viewCount: r.view_count,
    authorIndex: r.author_idx,
  };
}

function toComment(r) {
  return { id: `comment-${r.idx}`, text: r.text, authorIndex: r.author_idx };
}

// user(id) takes "bench-user-N" or "N" (canonical decimal) like the in-memory resolver, but
// for any N the table may hold (gqlbench can seed more than USER_COUNT users). Ids that
// cannot be an integer key resolve to null without a query (Postgres would reject them).
export function userIdxFromId(id) {
  const s = String(id);
  const digits = s.startsWith('bench-user-') ? s.slice(11) : s;
  if (!/^(0|[1-9][0-9]{0,9})$/.test(digits)) return -1;
  const n = Number(digits);
  return n <= MAX_INT ? n : -1;
}

// The `limit` of a list as an exclusive bound on `pos`: absent or null = all; a negative
// limit matches no row, which is "none" as in memory.
const posBound = (limit) => (limit === undefined || limit === null ? MAX_INT : limit);
const trendingBound = (limit) => (limit === undefined || limit === null ? TRENDING_DEFAULT_LIMIT : limit);

const TRENDING_SQL = `SELECT ${POST_COLUMNS} FROM trending t JOIN posts p ON p.idx = t.post_idx WHERE t.rank < $1 ORDER BY t.rank`;

// ---------------------------------------------------------------------------------------
// naive: every resolver runs its own query as soon as it is called, as code written without
// batching does. medium.graphql: 1 user + 1 posts + 10 comments + 50 authors = 62 queries.

const NAIVE_SQL = {
  user: `SELECT ${USER_COLUMNS} FROM users u WHERE u.idx = $1`,
  posts: `SELECT ${POST_COLUMNS} FROM posts p WHERE p.author_idx = $1 AND p.pos < $2 ORDER BY p.pos`,
  comments: `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.post_idx = $1 AND c.pos < $2 ORDER BY c.pos`,
  followers: `SELECT ${USER_COLUMNS} FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = $1 AND f.pos < $2 ORDER BY f.pos`,
};

function naiveResolvers(pool) {
  const one = async (sql, params, map) => {
    const { rows } = await pool.query(sql, params);
    return rows.length === 0 ? null : map(rows[0]);
  };
  const many = async (sql, params, map) => (await pool.query(sql, params)).rows.map(map);
  const userByIdx = (idx) => one(NAIVE_SQL.user, [idx], toUser);
  return {
    Query: {
      user: (_root, args) => {
        const idx = userIdxFromId(args.id);
        return idx < 0 ? null : userByIdx(idx);
      },
      me: () => userByIdx(ME_USER),
      trendingPosts: (_root, args) => many(TRENDING_SQL, [trendingBound(args.limit)], toPost),
    },
    User: {
      posts: (user, args) => many(NAIVE_SQL.posts, [user.index, posBound(args.limit)], toPost),
      followers: (user, args) => many(NAIVE_SQL.followers, [user.index, posBound(args.limit)], toUser),
    },
    Post: {
      author: (post) => userByIdx(post.authorIndex),
      comments: (post, args) => many(NAIVE_SQL.comments, [post.index, posBound(args.limit)], toComment),
    },
    Comment: {
      author: (c) => userByIdx(c.authorIndex),
    },
  };
}

// ---------------------------------------------------------------------------------------
// dataloader: the resolvers only call load(); DataLoader collects the keys of one tick (one
// level of the answer tree) and its batch function runs ONE query for all of them.
// medium.graphql: user, posts, comments, authors = 4 queries. Loaders live in the request's
// context, never longer, so no answer is ever served from another request's cache.

// A string key: every server copies its context object around, and a symbol key might not
// survive that everywhere.
const LOADERS = 'gqlbenchLoaders';

const BATCH_SQL = {
  users: `SELECT ${USER_COLUMNS} FROM users u WHERE u.idx = ANY($1::int[])`,
  // One query per batch even when the keys carry different limits: fetch up to the
  // largest bound and cut each key's list in JS.
  posts: `SELECT ${POST_COLUMNS} FROM posts p WHERE p.author_idx = ANY($1::int[]) AND p.pos < $2 ORDER BY p.author_idx, p.pos`,
  comments: `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.post_idx = ANY($1::int[]) AND c.pos < $2 ORDER BY c.post_idx, c.pos`,
  followers: `SELECT f.user_idx AS parent, f.pos AS follower_pos, ${USER_COLUMNS} FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = ANY($1::int[]) AND f.pos < $2 ORDER BY f.user_idx, f.pos`,
};

function createLoaders(pool, DataLoader) {
  return {
    user: new DataLoader(async (idxs) => {
      const { rows } = await pool.query(BATCH_SQL.users, [idxs]);
      const byIdx = new Map();
      for (const r of rows) byIdx.set(r.idx, toUser(r));
      return idxs.map((idx) => byIdx.get(idx) ?? null);
    }),
    posts: listLoader(DataLoader, pool, BATCH_SQL.posts, (r) => r.author_idx, (r) => r.pos, toPost),
    comments: listLoader(DataLoader, pool, BATCH_SQL.comments, (r) => r.post_idx, (r) => r.pos, toComment),
    followers: listLoader(DataLoader, pool, BATCH_SQL.followers, (r) => r.parent, (r) => r.follower_pos, toUser),
  };
}

// Keys are { parent, bound } (the parent's idx and the exclusive `pos` bound of its limit).
function listLoader(DataLoader, pool, sql, parentOf, posOf, map) {
  return new DataLoader(
    async (keys) => {
      const parents = [...new Set(keys.map((k) => k.parent))];
      let bound = keys[0].bound;
      for (const k of keys) if (k.bound > bound) bound = k.bound;
      const { rows } = await pool.query(sql, [parents, bound]);
      const byParent = new Map();
      for (const r of rows) {
        const p = parentOf(r);
        let list = byParent.get(p);
        if (!list) byParent.set(p, (list = []));
        list.push({ pos: posOf(r), value: map(r) });
      }
      return keys.map((k) => {
        const out = [];
        for (const e of byParent.get(k.parent) ?? []) if (e.pos < k.bound) out.push(e.value);
        return out;
      });
    },
    { cacheKeyFn: (k) => `${k.parent}:${k.bound}` },
  );
}

function dataloaderResolvers(pool) {
  const loaders = (ctx) => {
    const l = ctx?.[LOADERS];
    if (!l) throw new Error('no DataLoaders in the request context: the server must use makeContext()');
    return l;
  };
  return {
    Query: {
      user: (_root, args, ctx) => {
        const idx = userIdxFromId(args.id);
        return idx < 0 ? null : loaders(ctx).user.load(idx);
      },
      me: (_root, _args, ctx) => loaders(ctx).user.load(ME_USER),
      // A root field runs once per request: nothing to batch.
      trendingPosts: async (_root, args) => (await pool.query(TRENDING_SQL, [trendingBound(args.limit)])).rows.map(toPost),
    },
    User: {
      posts: (user, args, ctx) => loaders(ctx).posts.load({ parent: user.index, bound: posBound(args.limit) }),
      followers: (user, args, ctx) => loaders(ctx).followers.load({ parent: user.index, bound: posBound(args.limit) }),
    },
    Post: {
      author: (post, _args, ctx) => loaders(ctx).user.load(post.authorIndex),
      comments: (post, args, ctx) => loaders(ctx).comments.load({ parent: post.index, bound: posBound(args.limit) }),
    },
    Comment: {
      author: (c, _args, ctx) => loaders(ctx).user.load(c.authorIndex),
    },
  };
}
