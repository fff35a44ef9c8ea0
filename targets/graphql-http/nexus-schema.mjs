// The suite's schema built code first with Nexus (nexus 1.3), as a Nexus user writes it:
// `objectType`s whose `definition(t)` declares each field, a plain property left to the
// default resolver, a computed one given its `resolve`. The resolvers are the suite's own
// (targets/_node, in memory or PostgreSQL), so the answers are the SDL-first server's and
// the difference measured between the two is what the builder adds to each field. Held to
// the suite's SDL by `sameAsSdl` (same-as-sdl.mjs) before it serves.

import { idArg, intArg, makeSchema, mutationType, nonNull, objectType, queryType, stringArg } from 'nexus';

export function nexusSchema(resolvers) {
  // A field of `type` on `t`: the suite's resolver where its map has one, else none (the
  // default resolver reads the parent's property). `how` is `t`'s method for its type
  // ('id', 'string', 'int', 'field'), `options` its type, args and nullability.
  const field = (t, type, name, how, options = {}) => {
    const resolve = resolvers[type]?.[name];
    return t[how](name, resolve ? { ...options, resolve } : options);
  };
  const limit = { limit: intArg() };

  const User = objectType({
    name: 'User',
    definition(t) {
      field(t, 'User', 'id', 'id');
      field(t, 'User', 'name', 'string');
      field(t, 'User', 'email', 'string');
      field(t, 'User', 'firstName', 'string');
      field(t, 'User', 'lastName', 'string');
      field(t, 'User', 'createdAt', 'string');
      field(t.list, 'User', 'posts', 'field', { type: 'Post', args: limit });
      field(t.list, 'User', 'followers', 'field', { type: 'User', args: limit });
      field(t, 'User', 'displayName', 'string');
      field(t, 'User', 'initials', 'string');
      field(t, 'User', 'emailDomain', 'string');
      field(t, 'User', 'accountAgeDays', 'int');
    },
  });

  const Post = objectType({
    name: 'Post',
    definition(t) {
      field(t, 'Post', 'id', 'id');
      field(t, 'Post', 'title', 'string');
      field(t, 'Post', 'content', 'string');
      field(t, 'Post', 'publishedAt', 'string');
      field(t, 'Post', 'viewCount', 'int');
      field(t, 'Post', 'author', 'field', { type: 'User' });
      field(t.list, 'Post', 'comments', 'field', { type: 'Comment', args: limit });
      field(t, 'Post', 'slug', 'string');
      field(t, 'Post', 'wordCount', 'int');
      field(t, 'Post', 'excerpt', 'string', { args: { length: intArg() } });
      field(t, 'Post', 'readingTimeMinutes', 'int');
    },
  });

  const Comment = objectType({
    name: 'Comment',
    definition(t) {
      field(t, 'Comment', 'id', 'id');
      field(t, 'Comment', 'text', 'string');
      field(t, 'Comment', 'author', 'field', { type: 'User' });
      field(t, 'Comment', 'length', 'int');
      field(t, 'Comment', 'shout', 'string');
    },
  });

  const Author = objectType({
    name: 'Author',
    definition(t) {
      field(t, 'Author', 'id', 'id');
      field(t, 'Author', 'name', 'string');
      field(t, 'Author', 'md5', 'string');
      field(t.list, 'Author', 'books', 'field', { type: 'Book' });
    },
  });

  const Book = objectType({
    name: 'Book',
    definition(t) {
      field(t, 'Book', 'id', 'id');
      field(t, 'Book', 'name', 'string');
    },
  });

  const Query = queryType({
    definition(t) {
      field(t.nullable, 'Query', 'user', 'field', { type: 'User', args: { id: nonNull(idArg()) } });
      field(t.nullable, 'Query', 'me', 'field', { type: 'User' });
      field(t.list, 'Query', 'trendingPosts', 'field', { type: 'Post', args: limit });
      field(t.list, 'Query', 'authors', 'field', { type: 'Author' });
    },
  });

  const Mutation = mutationType({
    definition(t) {
      field(t.nullable, 'Mutation', 'renameUser', 'field', {
        type: 'User',
        args: { id: nonNull(idArg()), name: nonNull(stringArg()) },
      });
    },
  });

  return makeSchema({
    types: [Query, Mutation, User, Post, Comment, Author, Book],
    // The SDL's fields are non-null but for three (marked `t.nullable` above); its
    // arguments are nullable but for three (marked nonNull).
    nonNullDefaults: { output: true, input: false },
    // A server, not a build: no generated typings or schema file written at start-up.
    outputs: false,
    shouldGenerateArtifacts: false,
  });
}
