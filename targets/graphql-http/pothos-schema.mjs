// The suite's schema built code first with Pothos (@pothos/core), as a Pothos user writes
// it: object types and fields declared through the builder, a plain property exposed with
// `t.expose`, a computed one given its `resolve`. The resolvers are the suite's own
// (targets/_node, in memory or PostgreSQL), so the answers are the SDL-first server's and
// the difference measured between the two is what the builder adds to each field.
// Held to the suite's SDL by `sameAsSdl` (same-as-sdl.mjs) before it serves.

import SchemaBuilder from '@pothos/core';

export function pothosSchema(resolvers) {
  // The SDL's fields are non-null but for three: the builder's default set to match, the
  // three marked nullable where they are declared.
  const builder = new SchemaBuilder({ defaultFieldNullability: false });
  const resolverOf = (type, field) => resolvers[type]?.[field];
  // A field: its resolver from the suite's map where it has one, else the parent's
  // property (t.expose, Pothos' form of graphql-js' default resolver).
  const field = (t, type, name, fieldType, extra = {}) => {
    const resolve = resolverOf(type, name);
    return resolve
      ? t.field({ type: fieldType, ...extra, resolve })
      : t.expose(name, { type: fieldType, ...extra });
  };
  const withLimit = (t) => ({ limit: t.arg.int() });

  builder.objectType('User', {
    fields: (t) => ({
      id: field(t, 'User', 'id', 'ID'),
      name: field(t, 'User', 'name', 'String'),
      email: field(t, 'User', 'email', 'String'),
      firstName: field(t, 'User', 'firstName', 'String'),
      lastName: field(t, 'User', 'lastName', 'String'),
      createdAt: field(t, 'User', 'createdAt', 'String'),
      posts: t.field({ type: ['Post'], args: withLimit(t), resolve: resolverOf('User', 'posts') }),
      followers: t.field({ type: ['User'], args: withLimit(t), resolve: resolverOf('User', 'followers') }),
      displayName: field(t, 'User', 'displayName', 'String'),
      initials: field(t, 'User', 'initials', 'String'),
      emailDomain: field(t, 'User', 'emailDomain', 'String'),
      accountAgeDays: field(t, 'User', 'accountAgeDays', 'Int'),
    }),
  });

  builder.objectType('Post', {
    fields: (t) => ({
      id: field(t, 'Post', 'id', 'ID'),
      title: field(t, 'Post', 'title', 'String'),
      content: field(t, 'Post', 'content', 'String'),
      publishedAt: field(t, 'Post', 'publishedAt', 'String'),
      viewCount: field(t, 'Post', 'viewCount', 'Int'),
      author: t.field({ type: 'User', resolve: resolverOf('Post', 'author') }),
      comments: t.field({ type: ['Comment'], args: withLimit(t), resolve: resolverOf('Post', 'comments') }),
      slug: field(t, 'Post', 'slug', 'String'),
      wordCount: field(t, 'Post', 'wordCount', 'Int'),
      excerpt: t.field({ type: 'String', args: { length: t.arg.int() }, resolve: resolverOf('Post', 'excerpt') }),
      readingTimeMinutes: field(t, 'Post', 'readingTimeMinutes', 'Int'),
    }),
  });

  builder.objectType('Comment', {
    fields: (t) => ({
      id: field(t, 'Comment', 'id', 'ID'),
      text: field(t, 'Comment', 'text', 'String'),
      author: t.field({ type: 'User', resolve: resolverOf('Comment', 'author') }),
      length: field(t, 'Comment', 'length', 'Int'),
      shout: field(t, 'Comment', 'shout', 'String'),
    }),
  });

  builder.objectType('Author', {
    fields: (t) => ({
      id: field(t, 'Author', 'id', 'ID'),
      name: field(t, 'Author', 'name', 'String'),
      md5: field(t, 'Author', 'md5', 'String'),
      books: field(t, 'Author', 'books', ['Book']),
    }),
  });

  builder.objectType('Book', {
    fields: (t) => ({
      id: field(t, 'Book', 'id', 'ID'),
      name: field(t, 'Book', 'name', 'String'),
    }),
  });

  builder.queryType({
    fields: (t) => ({
      user: t.field({
        type: 'User',
        nullable: true,
        args: { id: t.arg.id({ required: true }) },
        resolve: resolverOf('Query', 'user'),
      }),
      me: t.field({ type: 'User', nullable: true, resolve: resolverOf('Query', 'me') }),
      trendingPosts: t.field({ type: ['Post'], args: withLimit(t), resolve: resolverOf('Query', 'trendingPosts') }),
      authors: t.field({ type: ['Author'], resolve: resolverOf('Query', 'authors') }),
    }),
  });

  builder.mutationType({
    fields: (t) => ({
      renameUser: t.field({
        type: 'User',
        nullable: true,
        args: { id: t.arg.id({ required: true }), name: t.arg.string({ required: true }) },
        resolve: resolverOf('Mutation', 'renameUser'),
      }),
    }),
  });

  return builder.toSchema();
}
