"""The social and authors schema, code first with Strawberry: the same types, fields and
arguments as the Node targets' SDL (targets/_node), with Strawberry's automatic camelCase
names. Users and posts are Strawberry objects made once at start-up from social.py's rows
(as the Node targets keep theirs in memory), so a request allocates only its comments and
lists; computed fields are resolvers, as in the Node targets. The authors types are
authors.py's and the Subscription type ticks.py's (both shared with db.py's schema, which
serves social-db). The one mutation (renameUser) is the response-cache scenarios'."""
from __future__ import annotations

from typing import Optional

import strawberry

import social as s
from authors import AUTHORS, Author


@strawberry.type
class Comment:
    id: strawberry.ID
    text: str
    author_index: strawberry.Private[int]

    @strawberry.field
    def author(self) -> User:
        return USERS[self.author_index]

    @strawberry.field
    def length(self) -> int:
        return len(self.text)

    @strawberry.field
    def shout(self) -> str:
        return self.text.upper()


@strawberry.type
class Post:
    id: strawberry.ID
    title: str
    content: str
    published_at: str
    view_count: int
    index: strawberry.Private[int]
    author_index: strawberry.Private[int]

    @strawberry.field
    def author(self) -> User:
        return USERS[self.author_index]

    @strawberry.field
    def comments(self, limit: Optional[int] = None) -> list[Comment]:
        out = []
        for k in range(s.cap(s.COMMENTS_PER_POST, limit)):
            c = s.comment(self.index, k)
            out.append(Comment(id=strawberry.ID(c.id), text=c.text, author_index=c.author_index))
        return out

    @strawberry.field
    def slug(self) -> str:
        return s.slug(self.title, self.index)

    @strawberry.field
    def word_count(self) -> int:
        return s.word_count(self.content)

    @strawberry.field
    def excerpt(self, length: Optional[int] = None) -> str:
        return s.excerpt(self.content, length)

    @strawberry.field
    def reading_time_minutes(self) -> int:
        return s.reading_time_minutes(self.content)


@strawberry.type
class User:
    id: strawberry.ID
    name: str
    email: str
    first_name: str
    last_name: str
    created_at: str
    index: strawberry.Private[int]
    created_ms: strawberry.Private[int]

    @strawberry.field
    def posts(self, limit: Optional[int] = None) -> list[Post]:
        first = self.index * s.POSTS_PER_USER
        return POSTS[first:first + s.cap(s.POSTS_PER_USER, limit)]

    @strawberry.field
    def followers(self, limit: Optional[int] = None) -> list[User]:
        u = self.index
        n = s.cap(s.FOLLOWERS_PER_USER, limit)
        return [USERS[(u * 31 + k * 17 + 1) % s.USER_COUNT] for k in range(n)]

    @strawberry.field
    def display_name(self) -> str:
        return f'{self.first_name} {self.last_name[:1]}.'

    @strawberry.field
    def initials(self) -> str:
        return f'{self.first_name[:1]}{self.last_name[:1]}'

    @strawberry.field
    def email_domain(self) -> str:
        return self.email[self.email.find('@') + 1:]

    @strawberry.field
    def account_age_days(self) -> int:
        return s.account_age_days(self.created_ms)


USERS = [
    User(id=strawberry.ID(u.id), name=u.name, email=u.email, first_name=u.first_name,
         last_name=u.last_name, created_at=u.created_at, index=u.index, created_ms=u.created_ms)
    for u in s.USERS
]
POSTS = [
    Post(id=strawberry.ID(p.id), title=p.title, content=p.content, published_at=p.published_at,
         view_count=p.view_count, index=p.index, author_index=p.author_index)
    for p in s.POSTS
]
TRENDING = [POSTS[p.index] for p in s.TRENDING]


@strawberry.type
class Query:
    @strawberry.field
    def user(self, id: strawberry.ID) -> Optional[User]:
        n = s.user_index_from_id(id)
        return None if n < 0 else USERS[n]

    @strawberry.field
    def me(self) -> Optional[User]:
        return USERS[s.ME_USER]

    @strawberry.field
    def trending_posts(self, limit: Optional[int] = None) -> list[Post]:
        limit = s.TRENDING_DEFAULT_LIMIT if limit is None else limit
        return TRENDING[: s.cap(len(TRENDING), limit)]

    @strawberry.field
    def authors(self) -> list[Author]:
        return AUTHORS


@strawberry.type
class Mutation:
    @strawberry.mutation
    def rename_user(self, id: strawberry.ID, name: str) -> Optional[User]:
        n = s.user_index_from_id(id)
        if n < 0:
            return None
        USERS[n].name = name
        return USERS[n]
