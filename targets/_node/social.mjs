// The "social" workload (users, posts, comments, followers) of the Apollo vs Yoga vs
// Mercurius articles, as plain JS: SDL, deterministic data and a resolver map.
//
// Deliberately no imports at all: targets/_node has no node_modules, and every target must
// build the schema with its OWN copy of graphql (two copies of graphql-js in one process
// break `instanceof` checks). So this file only exports strings, objects and functions.
//
// Determinism: every value is a pure function of integer indices and a fixed epoch, so all
// targets (and gen-expected.mjs) produce byte-identical answers on every run and machine.

export const USER_COUNT = 10_000;
export const POSTS_PER_USER = 10;
export const COMMENTS_PER_POST = 5;
export const FOLLOWERS_PER_USER = 25;
export const TRENDING_COUNT = 50;
export const TRENDING_DEFAULT_LIMIT = 10;
export const ME_USER = 1;

// Type definitions only; the Query fields are in SOCIAL_QUERY_FIELDS so that index.mjs can
// merge several workloads into one `type Query` (every target serves every workload).
export const SOCIAL_TYPES = /* GraphQL */ `
type User {
  id: ID!
  name: String!
  email: String!
  firstName: String!
  lastName: String!
  createdAt: String!
  posts(limit: Int): [Post!]!
  followers(limit: Int): [User!]!
  displayName: String!
  initials: String!
  emailDomain: String!
  accountAgeDays: Int!
}

type Post {
  id: ID!
  title: String!
  content: String!
  publishedAt: String!
  viewCount: Int!
  author: User!
  comments(limit: Int): [Comment!]!
  slug: String!
  wordCount: Int!
  excerpt(length: Int): String!
  readingTimeMinutes: Int!
}

type Comment {
  id: ID!
  text: String!
  author: User!
  length: Int!
  shout: String!
}
`;

export const SOCIAL_QUERY_FIELDS = /* GraphQL */ `
  user(id: ID!): User
  me: User
  trendingPosts(limit: Int): [Post!]!
`;

// The one write: the response-cache scenarios' staleness check renames a user through the
// server under test and back (scenarios/queries/social/rename-user.graphql). Nothing else
// writes, so every other answer stays fixed for the whole run.
export const SOCIAL_MUTATION_FIELDS = /* GraphQL */ `
  renameUser(id: ID!, name: String!): User
`;

// A standalone SDL of this workload alone (not served by the targets; handy for tools).
export const SOCIAL_SDL = `type Query {${SOCIAL_QUERY_FIELDS}}\n${SOCIAL_TYPES}`;

// ---------------------------------------------------------------------------------------
// Data. Users and posts are materialised once at start-up (like rows already in memory);
// comments are materialised per request from integers (like rows read from a store), so
// the heap every server starts with stays modest (~tens of MB, identical for all targets).

const FIRST = [
  'Ada', 'Alan', 'Barbara', 'Brian', 'Claude', 'Dennis', 'Donald', 'Edsger', 'Frances',
  'Grace', 'Guido', 'Hedy', 'Ivan', 'John', 'Ken', 'Leslie', 'Linus', 'Margaret', 'Niklaus',
  'Radia', 'Robin', 'Shafi', 'Sophie', 'Tim', 'Tony', 'Vint', 'Whitfield', 'Yukihiro',
];
const LAST = [
  'Lovelace', 'Turing', 'Liskov', 'Kernighan', 'Shannon', 'Ritchie', 'Knuth', 'Dijkstra',
  'Allen', 'Hopper', 'Rossum', 'Lamarr', 'Sutherland', 'McCarthy', 'Thompson', 'Lamport',
  'Torvalds', 'Hamilton', 'Wirth', 'Perlman', 'Milner', 'Goldwasser', 'Wilson', 'Berners',
  'Hoare', 'Cerf', 'Diffie', 'Matsumoto', 'Backus',
];
const TOPICS = [
  'caching', 'query planning', 'schema design', 'federation', 'pagination', 'batching',
  'persisted queries', 'subscriptions', 'error handling', 'rate limiting', 'tracing',
  'code generation', 'input validation', 'nullability', 'connection pooling', 'testing',
];
const WORDS = (
  'the server resolves each field of the selection set and returns a tree of values that ' +
  'mirrors the query exactly while the client decides which fields it needs and the schema ' +
  'describes every type that can be asked for so tools can check a document before it runs'
).split(' ');

// 2020-01-01T00:00:00Z: a fixed epoch, never Date.now(), so dates are reproducible.
const EPOCH_MS = Date.UTC(2020, 0, 1);
const iso = (ms) => new Date(EPOCH_MS + ms).toISOString();

// A pool of post bodies (a few hundred bytes each), chosen per post from its index: shared
// strings keep 100,000 posts cheap in memory while answers still vary from post to post.
const CONTENT_POOL = Array.from({ length: 64 }, (_, i) => {
  const parts = [];
  for (let w = 0; parts.join(' ').length < 280 + (i % 7) * 20; w++) {
    parts.push(WORDS[(i * 5 + w * 3) % WORDS.length]);
  }
  return `Notes on ${TOPICS[i % TOPICS.length]} #${i}: ${parts.join(' ')}.`;
});

export const users = new Array(USER_COUNT);
for (let u = 0; u < USER_COUNT; u++) {
  const firstName = FIRST[u % FIRST.length];
  const lastName = LAST[(u * 7 + 3) % LAST.length];
  users[u] = {
    index: u,
    id: `bench-user-${u}`,
    name: `${firstName} ${lastName}`,
    email: `${firstName.toLowerCase()}.${lastName.toLowerCase()}.${u}@bench.example.com`,
    firstName,
    lastName,
    // one user every ~2 hours from the epoch
    createdAt: iso(u * 7_261_000),
  };
}

export const posts = new Array(USER_COUNT * POSTS_PER_USER);
for (let p = 0; p < posts.length; p++) {
  const author = Math.floor(p / POSTS_PER_USER);
  posts[p] = {
    index: p,
    id: `post-${p}`,
    title: `${TOPICS[(p * 3) % TOPICS.length]} in practice, part ${(p % POSTS_PER_USER) + 1}`,
    content: CONTENT_POOL[(p * 13) % CONTENT_POOL.length],
    // posts appear after their author's creation date, spaced by hours
    publishedAt: iso(author * 7_261_000 + ((p % POSTS_PER_USER) + 1) * 3_600_000),
    viewCount: (p * 7919) % 100_000,
    authorIndex: author,
  };
}

// Trending: a fixed list of posts spread over the whole id range.
const TRENDING = Array.from({ length: TRENDING_COUNT }, (_, k) => posts[(k * 7_919 + 4_243) % posts.length]);

function comment(postIndex, k) {
  const n = postIndex * COMMENTS_PER_POST + k;
  return {
    id: `comment-${n}`,
    text: `Comment ${k + 1} on post-${postIndex}: ${TOPICS[n % TOPICS.length]} is worth it.`,
    authorIndex: (postIndex * 7 + k * 1_013) % USER_COUNT,
  };
}

// `limit` semantics shared by every list field: absent or null = all; negative = none.
function cap(total, limit) {
  if (limit === undefined || limit === null) return total;
  return limit < 0 ? 0 : Math.min(total, limit);
}

// Accepts "bench-user-N" and "N" (canonical decimal, no sign/leading zeros) for the same
// user; anything else or out of range resolves to null (not an error).
export function userIndexFromId(id) {
  const s = String(id);
  const digits = s.startsWith('bench-user-') ? s.slice(11) : s;
  if (digits.length === 0 || digits.length > 5) return -1;
  const n = Number(digits);
  if (!Number.isInteger(n) || n < 0 || n >= USER_COUNT || String(n) !== digits) return -1;
  return n;
}

export function getUser(id) {
  const n = userIndexFromId(id);
  return n < 0 ? null : users[n];
}

// Computed fields: pure functions of the parent object alone (no lookups, no clock), so
// the in-memory resolvers below and the database resolvers (db.mjs), which build parent
// objects of the same shape, share them and give identical answers. They add resolver
// work per field without any I/O, which is what the deep query exercises.

// Account age is measured to a fixed date, not to "now", so answers never change.
const AGE_REFERENCE_MS = Date.UTC(2025, 0, 1);
const DAY_MS = 86_400_000;
const EXCERPT_DEFAULT_LENGTH = 80;
const WORDS_PER_MINUTE = 200;

const wordCount = (text) => {
  let n = 0;
  for (const w of text.split(' ')) if (w.length > 0) n++;
  return n;
};

export const computedResolvers = {
  User: {
    displayName: (user) => `${user.firstName} ${user.lastName.charAt(0)}.`,
    initials: (user) => `${user.firstName.charAt(0)}${user.lastName.charAt(0)}`,
    emailDomain: (user) => user.email.slice(user.email.indexOf('@') + 1),
    // Accounts created after the reference date (only in a database scaled far beyond
    // USER_COUNT) are 0 days old rather than negative.
    accountAgeDays: (user) => Math.max(0, Math.floor((AGE_REFERENCE_MS - Date.parse(user.createdAt)) / DAY_MS)),
  },
  Post: {
    slug: (post) => `${post.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-${post.index}`,
    wordCount: (post) => wordCount(post.content),
    // Same `limit`-style semantics as the lists: absent or null = default, negative = empty.
    excerpt: (post, args) => {
      const n = args.length === undefined || args.length === null ? EXCERPT_DEFAULT_LENGTH : Math.max(0, args.length);
      if (post.content.length <= n) return post.content;
      return n === 0 ? '' : `${post.content.slice(0, n).trimEnd()}...`;
    },
    readingTimeMinutes: (post) => Math.max(1, Math.ceil(wordCount(post.content) / WORDS_PER_MINUTE)),
  },
  Comment: {
    length: (c) => c.text.length,
    shout: (c) => c.text.toUpperCase(),
  },
};

export const socialResolvers = {
  Mutation: {
    // Renames the user in memory (null for an unknown id, like the query).
    renameUser: (_root, args) => {
      const user = getUser(args.id);
      if (user) user.name = args.name;
      return user;
    },
  },
  Query: {
    user: (_root, args) => getUser(args.id),
    me: () => users[ME_USER],
    trendingPosts: (_root, args) => {
      const limit = args.limit === undefined || args.limit === null ? TRENDING_DEFAULT_LIMIT : args.limit;
      return TRENDING.slice(0, cap(TRENDING.length, limit));
    },
  },
  User: {
    ...computedResolvers.User,
    posts: (user, args) => {
      const n = cap(POSTS_PER_USER, args.limit);
      const first = user.index * POSTS_PER_USER;
      const out = new Array(n);
      for (let j = 0; j < n; j++) out[j] = posts[first + j];
      return out;
    },
    followers: (user, args) => {
      const n = cap(FOLLOWERS_PER_USER, args.limit);
      const out = new Array(n);
      for (let k = 0; k < n; k++) out[k] = users[(user.index * 31 + k * 17 + 1) % USER_COUNT];
      return out;
    },
  },
  Post: {
    ...computedResolvers.Post,
    author: (post) => users[post.authorIndex],
    comments: (post, args) => {
      const n = cap(COMMENTS_PER_POST, args.limit);
      const out = new Array(n);
      for (let k = 0; k < n; k++) out[k] = comment(post.index, k);
      return out;
    },
  },
  Comment: {
    ...computedResolvers.Comment,
    author: (c) => users[c.authorIndex],
  },
};
