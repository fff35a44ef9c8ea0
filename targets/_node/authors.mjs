// The "authors" workload of the node-graphql-benchmarks lineage: 20 authors x 3 books and an
// `md5` field hashed per request. The hash IS the benchmark's unit of resolver work (it was
// in the original), so it is computed on every request, never cached.
//
// Only node: built-ins are imported here (no packages: targets/_node has no node_modules).
// The original generated names with faker at start-up; fixed names keep answers checkable.

import { createHash } from 'node:crypto';

export const AUTHORS_TYPES = /* GraphQL */ `
type Author {
  id: ID!
  name: String!
  md5: String!
  books: [Book!]!
}

type Book {
  id: ID!
  name: String!
}
`;

export const AUTHORS_QUERY_FIELDS = /* GraphQL */ `
  authors: [Author!]!
`;

export const AUTHORS_SDL = `type Query {${AUTHORS_QUERY_FIELDS}}\n${AUTHORS_TYPES}`;

const AUTHOR_NAMES = [
  'Chinua Achebe', 'Isabel Allende', 'Margaret Atwood', 'Jorge Luis Borges', 'Italo Calvino',
  'Albert Camus', 'Miguel de Cervantes', 'Fyodor Dostoevsky', 'George Eliot', 'Gabriel Garcia Marquez',
  'Nikolai Gogol', 'Kazuo Ishiguro', 'Franz Kafka', 'Ursula K. Le Guin', 'Naguib Mahfouz',
  'Toni Morrison', 'Haruki Murakami', 'Orhan Pamuk', 'Jose Saramago', 'Virginia Woolf',
];
const BOOK_WORDS = ['Silent', 'River', 'Glass', 'Northern', 'Garden', 'Winter', 'Paper', 'Harbour', 'Lantern', 'Orchard', 'Distant', 'Salt'];

export const authors = AUTHOR_NAMES.map((name, a) => ({
  id: `author-${a + 1}`,
  name,
  books: [0, 1, 2].map((b) => ({
    id: `book-${a + 1}-${b + 1}`,
    name: `The ${BOOK_WORDS[(a + b * 5) % BOOK_WORDS.length]} ${BOOK_WORDS[(a * 3 + b + 7) % BOOK_WORDS.length]}`,
  })),
}));

export const authorsResolvers = {
  Query: {
    authors: () => authors,
  },
  Author: {
    md5: (author) => createHash('md5').update(author.name).digest('hex'),
  },
};
