"""The authors workload's types and data, shared by both schemas (schema.py in memory,
db.py for social-db): nothing here comes from the database, and this module does not build
the social users and posts, so the database mode does not pay for them."""
from __future__ import annotations

import strawberry

import social as s


@strawberry.type
class Book:
    id: strawberry.ID
    name: str


@strawberry.type
class Author:
    id: strawberry.ID
    name: str
    books: list[Book]

    @strawberry.field
    def md5(self) -> str:
        return s.md5(self.name)


AUTHORS = [
    Author(
        id=strawberry.ID(f'author-{a + 1}'),
        name=name,
        books=[Book(id=strawberry.ID(f'book-{a + 1}-{b + 1}'), name=s.book_name(a, b)) for b in range(3)],
    )
    for a, name in enumerate(s.AUTHOR_NAMES)
]
