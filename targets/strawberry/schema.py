"""The social and authors schema, code first with Strawberry: the same types, fields and
arguments as the Node targets' SDL (targets/_node), with Strawberry's automatic camelCase
names, resolved from social.py's rows. No Subscription type: this server has no
subscription transport. The one mutation (renameUser) is the response-cache scenarios'."""
from __future__ import annotations

from typing import Optional

import strawberry

import social as s


@strawberry.type
class Comment:
    row: strawberry.Private[s.CommentRow]

    @strawberry.field
    def id(self) -> strawberry.ID:
        return strawberry.ID(self.row.id)

    @strawberry.field
    def text(self) -> str:
        return self.row.text

    @strawberry.field
    def author(self) -> User:
        return User(row=s.USERS[self.row.author_index])

    @strawberry.field
    def length(self) -> int:
        return len(self.row.text)

    @strawberry.field
    def shout(self) -> str:
        return self.row.text.upper()


@strawberry.type
class Post:
    row: strawberry.Private[s.PostRow]

    @strawberry.field
    def id(self) -> strawberry.ID:
        return strawberry.ID(self.row.id)

    @strawberry.field
    def title(self) -> str:
        return self.row.title

    @strawberry.field
    def content(self) -> str:
        return self.row.content

    @strawberry.field
    def published_at(self) -> str:
        return self.row.published_at

    @strawberry.field
    def view_count(self) -> int:
        return self.row.view_count

    @strawberry.field
    def author(self) -> User:
        return User(row=s.USERS[self.row.author_index])

    @strawberry.field
    def comments(self, limit: Optional[int] = None) -> list[Comment]:
        n = s.cap(s.COMMENTS_PER_POST, limit)
        return [Comment(row=s.comment(self.row.index, k)) for k in range(n)]

    @strawberry.field
    def slug(self) -> str:
        return s.slug(self.row)

    @strawberry.field
    def word_count(self) -> int:
        return s.word_count(self.row.content)

    @strawberry.field
    def excerpt(self, length: Optional[int] = None) -> str:
        return s.excerpt(self.row, length)

    @strawberry.field
    def reading_time_minutes(self) -> int:
        return s.reading_time_minutes(self.row)


@strawberry.type
class User:
    row: strawberry.Private[s.UserRow]

    @strawberry.field
    def id(self) -> strawberry.ID:
        return strawberry.ID(self.row.id)

    @strawberry.field
    def name(self) -> str:
        return self.row.name

    @strawberry.field
    def email(self) -> str:
        return self.row.email

    @strawberry.field
    def first_name(self) -> str:
        return self.row.first_name

    @strawberry.field
    def last_name(self) -> str:
        return self.row.last_name

    @strawberry.field
    def created_at(self) -> str:
        return self.row.created_at

    @strawberry.field
    def posts(self, limit: Optional[int] = None) -> list[Post]:
        first = self.row.index * s.POSTS_PER_USER
        return [Post(row=s.POSTS[first + j]) for j in range(s.cap(s.POSTS_PER_USER, limit))]

    @strawberry.field
    def followers(self, limit: Optional[int] = None) -> list[User]:
        u = self.row.index
        n = s.cap(s.FOLLOWERS_PER_USER, limit)
        return [User(row=s.USERS[(u * 31 + k * 17 + 1) % s.USER_COUNT]) for k in range(n)]

    @strawberry.field
    def display_name(self) -> str:
        return f'{self.row.first_name} {self.row.last_name[:1]}.'

    @strawberry.field
    def initials(self) -> str:
        return f'{self.row.first_name[:1]}{self.row.last_name[:1]}'

    @strawberry.field
    def email_domain(self) -> str:
        e = self.row.email
        return e[e.find('@') + 1:]

    @strawberry.field
    def account_age_days(self) -> int:
        return s.account_age_days(self.row)


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


@strawberry.type
class Query:
    @strawberry.field
    def user(self, id: strawberry.ID) -> Optional[User]:
        row = s.get_user(id)
        return None if row is None else User(row=row)

    @strawberry.field
    def me(self) -> Optional[User]:
        return User(row=s.USERS[s.ME_USER])

    @strawberry.field
    def trending_posts(self, limit: Optional[int] = None) -> list[Post]:
        limit = s.TRENDING_DEFAULT_LIMIT if limit is None else limit
        return [Post(row=p) for p in s.TRENDING[: s.cap(len(s.TRENDING), limit)]]

    @strawberry.field
    def authors(self) -> list[Author]:
        return AUTHORS


@strawberry.type
class Mutation:
    @strawberry.mutation
    def rename_user(self, id: strawberry.ID, name: str) -> Optional[User]:
        row = s.get_user(id)
        if row is not None:
            row.name = name
        return None if row is None else User(row=row)
