"""The "social-db" workload: the social schema served from the PostgreSQL tables gqlbench
seeds, with answers identical to the in-memory ones, in the two resolver modes of the Node
targets (targets/_node/db.mjs, whose SQL this repeats):

  GQLBENCH_RESOLVERS     unset: in memory (schema.py), nothing here is used
                         naive: one SQL query per resolved field (the N+1 pattern)
                         dataloader: Strawberry's DataLoader made per request, one
                         `= ANY($1)` query per batch
  GQLBENCH_DATABASE_URL  e.g. postgres://gqlbench@127.0.0.1:54321/gqlbench
  GQLBENCH_DB_POOL       the asyncpg pool's max_size (default 20, pg.Pool's max in Node)

The types here have the same names, fields and arguments as schema.py's, built from rows
rather than from the start-up data; they are a separate schema (server.py picks one at
start-up) so that the in-memory resolvers stay exactly as they were, without a mode test
on every field. The computed fields call the same social.py functions as in memory.

Errors: a failing query raises in its resolver, so Strawberry answers a GraphQL error for
that field; asyncpg's pool replaces a connection that died while idle on its next use, so
the process survives a database restart."""
from __future__ import annotations

import asyncio
import os
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Awaitable, Callable, Optional

import asyncpg
import strawberry
from strawberry.dataloader import DataLoader

import social as s
from authors import AUTHORS, Author

RESOLVER_MODES = ('naive', 'dataloader')
DEFAULT_POOL_SIZE = 20
# Connecting and every query (create_pool's timeout and command_timeout): a database that
# accepts connections but never answers would otherwise hang requests forever; 10 s is far
# above any query or pool wait in a valid run.
CONNECT_TIMEOUT_S = 10.0
MAX_INT = 2_147_483_647
ONE_MS = timedelta(milliseconds=1)


@dataclass
class Config:
    mode: str
    url: str
    pool_size: int


def config_from_env(env=os.environ) -> Optional[Config]:
    """None when GQLBENCH_RESOLVERS is unset; exits (2) on a bad value, since a run that
    silently fell back to memory would report the wrong thing."""
    mode = env.get('GQLBENCH_RESOLVERS', '')
    if mode == '':
        return None

    def fail(message: str):
        print(message, file=sys.stderr, flush=True)
        sys.exit(2)

    if mode not in RESOLVER_MODES:
        fail(f'invalid GQLBENCH_RESOLVERS {mode!r}: expected naive or dataloader')
    url = env.get('GQLBENCH_DATABASE_URL', '')
    if url == '':
        fail('GQLBENCH_RESOLVERS is set but GQLBENCH_DATABASE_URL is not')
    pool_size = DEFAULT_POOL_SIZE
    raw = env.get('GQLBENCH_DB_POOL', '')
    if raw != '':
        try:
            pool_size = int(raw)
        except ValueError:
            pool_size = 0
        if pool_size < 1 or not raw.isdigit():
            fail(f'invalid GQLBENCH_DB_POOL {raw!r}: expected a whole number above 0')
    return Config(mode=mode, url=url, pool_size=pool_size)


async def open_pool(config: Config) -> asyncpg.Pool:
    """min_size 0: connections are opened when first needed, as pg.Pool and pgxpool do, so
    start-up does not depend on the database answering. asyncpg prepares each statement
    once per connection (its statement cache) and reuses it afterwards."""
    return await asyncpg.create_pool(
        config.url,
        min_size=0,
        max_size=config.pool_size,
        timeout=CONNECT_TIMEOUT_S,
        # Bounds every query inside asyncpg's protocol (no Python timer per query): a
        # pooled connection is then never held longer, so the wait for one is bounded too.
        command_timeout=CONNECT_TIMEOUT_S,
        server_settings={'application_name': 'gqlbench-strawberry'},
        reset=_keep_session,
    )


async def _keep_session(con) -> None:
    """asyncpg's default release runs a reset query (RESET ALL, UNLISTEN *, ...) on every
    connection returned to the pool: one more round trip, and one more statement counted,
    per SQL query (the first try measured 124 statements per naive medium request, not 62).
    pg.Pool and pgxpool send nothing on release, and these sessions change no state (no
    SET, LISTEN, locks or open transaction; asyncpg still rolls back a transaction left
    open before calling this), so there is nothing to reset."""


# ---------------------------------------------------------------------------------------
# SQL: db.mjs's, column for column.

USER_COLUMNS = 'u.idx, u.first_name, u.last_name, u.email, u.created_at'
POST_COLUMNS = 'p.idx, p.author_idx, p.pos, p.title, p.content, p.published_at, p.view_count'
COMMENT_COLUMNS = 'c.idx, c.post_idx, c.pos, c.text, c.author_idx'

TRENDING_SQL = f'SELECT {POST_COLUMNS} FROM trending t JOIN posts p ON p.idx = t.post_idx WHERE t.rank < $1 ORDER BY t.rank'

NAIVE_SQL_USER = f'SELECT {USER_COLUMNS} FROM users u WHERE u.idx = $1'
NAIVE_SQL_POSTS = f'SELECT {POST_COLUMNS} FROM posts p WHERE p.author_idx = $1 AND p.pos < $2 ORDER BY p.pos'
NAIVE_SQL_COMMENTS = f'SELECT {COMMENT_COLUMNS} FROM comments c WHERE c.post_idx = $1 AND c.pos < $2 ORDER BY c.pos'
NAIVE_SQL_FOLLOWERS = f'SELECT {USER_COLUMNS} FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = $1 AND f.pos < $2 ORDER BY f.pos'

BATCH_SQL_USERS = f'SELECT {USER_COLUMNS} FROM users u WHERE u.idx = ANY($1::int[])'
# One query per batch even when the keys carry different limits: fetch up to the largest
# bound and cut each key's list here.
BATCH_SQL_POSTS = f'SELECT {POST_COLUMNS} FROM posts p WHERE p.author_idx = ANY($1::int[]) AND p.pos < $2 ORDER BY p.author_idx, p.pos'
BATCH_SQL_COMMENTS = f'SELECT {COMMENT_COLUMNS} FROM comments c WHERE c.post_idx = ANY($1::int[]) AND c.pos < $2 ORDER BY c.post_idx, c.pos'
BATCH_SQL_FOLLOWERS = f'SELECT f.user_idx AS parent, f.pos AS follower_pos, {USER_COLUMNS} FROM followers f JOIN users u ON u.idx = f.follower_idx WHERE f.user_idx = ANY($1::int[]) AND f.pos < $2 ORDER BY f.user_idx, f.pos'


def iso(t: datetime) -> str:
    """JavaScript's toISOString() of a timestamptz: asyncpg gives an aware UTC datetime, and
    the stored values have whole milliseconds, so milliseconds plus a Z is exact."""
    return t.isoformat(timespec='milliseconds')[:-6] + 'Z'


_DIGITS = re.compile(r'(?:0|[1-9][0-9]{0,9})')


def user_idx_from_id(id_: str) -> int:
    """"bench-user-N" or "N" (canonical decimal), like the in-memory resolver, but for any N
    the table may hold (gqlbench can seed more than USER_COUNT users); ids that cannot be
    an integer key are -1, null without a query (PostgreSQL would reject them)."""
    text = str(id_)
    digits = text[11:] if text.startswith('bench-user-') else text
    if not _DIGITS.fullmatch(digits):
        return -1
    n = int(digits)
    return n if n <= MAX_INT else -1


def pos_bound(limit: Optional[int]) -> int:
    """A list's `limit` as an exclusive bound on `pos`: absent or null = all; a negative
    limit matches no row, which is "none" as in memory."""
    return MAX_INT if limit is None else limit


def trending_bound(limit: Optional[int]) -> int:
    return s.TRENDING_DEFAULT_LIMIT if limit is None else limit


# ---------------------------------------------------------------------------------------
# The types. Rows become these objects once (eagerly, as db.mjs's toUser/toPost do), and
# their plain fields are then read by Strawberry's default resolver.

@strawberry.type
class Comment:
    id: strawberry.ID
    text: str
    author_index: strawberry.Private[int]

    @strawberry.field
    def author(self, info: strawberry.Info) -> User:
        return SOURCE.user(info, self.author_index)

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
    def author(self, info: strawberry.Info) -> User:
        return SOURCE.user(info, self.author_index)

    @strawberry.field
    def comments(self, info: strawberry.Info, limit: Optional[int] = None) -> list[Comment]:
        return SOURCE.comments(info, self.index, pos_bound(limit))

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
    def posts(self, info: strawberry.Info, limit: Optional[int] = None) -> list[Post]:
        return SOURCE.posts(info, self.index, pos_bound(limit))

    @strawberry.field
    def followers(self, info: strawberry.Info, limit: Optional[int] = None) -> list[User]:
        return SOURCE.followers(info, self.index, pos_bound(limit))

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
        # social.py's function clamps at 0: accounts created after the reference date
        # exist only in a database scaled far beyond USER_COUNT.
        return s.account_age_days(self.created_ms)


def to_user(r) -> User:
    created = r['created_at']
    return User(
        id=strawberry.ID(f"bench-user-{r['idx']}"),
        name=f"{r['first_name']} {r['last_name']}",
        email=r['email'],
        first_name=r['first_name'],
        last_name=r['last_name'],
        created_at=iso(created),
        index=r['idx'],
        created_ms=(created - s.EPOCH) // ONE_MS,
    )


def to_post(r) -> Post:
    return Post(
        id=strawberry.ID(f"post-{r['idx']}"),
        title=r['title'],
        content=r['content'],
        published_at=iso(r['published_at']),
        view_count=r['view_count'],
        index=r['idx'],
        author_index=r['author_idx'],
    )


def to_comment(r) -> Comment:
    return Comment(id=strawberry.ID(f"comment-{r['idx']}"), text=r['text'], author_index=r['author_idx'])


# ---------------------------------------------------------------------------------------
# The two sources. Every method returns an awaitable (a coroutine in naive mode, a
# DataLoader future in dataloader mode), which graphql-core awaits like an async resolver.

class Naive:
    """Every resolver runs its own query as soon as it is called, as code written without
    batching does. medium.graphql: 1 user + 1 posts + 10 comments + 50 authors = 62."""

    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool
        # Waiting for a connection in turn. asyncpg's pool hands connections out through an
        # asyncio queue, whose woken waiter can lose the connection to a task that asked
        # later and is then put back at the END of the line: under load (100 requests, 20
        # connections) a few requests waited that way again and again (DataLoader mode, 100
        # connections: p99 3.9-5.1 s for a p50 of 1.1-1.5 s, and 4 of ~800 requests past the
        # 10 s timeout in a committed run; with this gate p99 1.7-2.4 s for a p50 of
        # 1.5-2.0 s, docs/more-servers.md). asyncio.Semaphore wakes its waiters
        # first come, first served and lets no newcomer take a released permit from them
        # (Python 3.11.1+), so with one permit per connection the pool's own queue is
        # never waited on, and the order is pg.Pool's (a FIFO queue) in the Node targets.
        gate = asyncio.Semaphore(pool.get_max_size())
        # Pool.fetch: acquire, query, release in one call, the fewest Python layers per
        # query (asyncpg's query path was the largest single item of this mode's CPU profile).
        # The query is bounded by the pool's command_timeout, so no permit is held longer; the
        # wait for one has no bound of its own (nor had the pool's), the client's timeout is.
        pool_fetch = pool.fetch

        async def fetch(sql: str, *args):
            async with gate:
                return await pool_fetch(sql, *args)

        self.fetch = fetch

    async def _user(self, idx: int) -> Optional[User]:
        rows = await self.fetch(NAIVE_SQL_USER, idx)
        return to_user(rows[0]) if rows else None

    def user(self, info, idx: int) -> Awaitable[Optional[User]]:
        return self._user(idx)

    async def trending(self, bound: int) -> list[Post]:
        return [to_post(r) for r in await self.fetch(TRENDING_SQL, bound)]

    async def posts(self, info, parent: int, bound: int) -> list[Post]:
        return [to_post(r) for r in await self.fetch(NAIVE_SQL_POSTS, parent, bound)]

    async def comments(self, info, parent: int, bound: int) -> list[Comment]:
        return [to_comment(r) for r in await self.fetch(NAIVE_SQL_COMMENTS, parent, bound)]

    async def followers(self, info, parent: int, bound: int) -> list[User]:
        return [to_user(r) for r in await self.fetch(NAIVE_SQL_FOLLOWERS, parent, bound)]


# The context key of the request's loaders (server.py's get_context puts them there).
LOADERS = 'gqlbench_loaders'


class Loaders:
    """One request's DataLoaders. Strawberry's DataLoader collects the keys asked for while
    the event loop runs the current callbacks (its dispatch is scheduled with call_soon),
    which is one level of the answer tree here, and its batch function runs ONE query for
    all of them. medium.graphql: user, posts, comments, authors = 4 queries. Made per
    request, never shared, so no answer is served from another request's cache."""

    def __init__(self, naive: Naive):
        fetch = naive.fetch

        async def users(idxs: list[int]) -> list[Optional[User]]:
            by_idx = {r['idx']: to_user(r) for r in await fetch(BATCH_SQL_USERS, idxs)}
            return [by_idx.get(i) for i in idxs]

        self.user = DataLoader(load_fn=users)
        self.posts = DataLoader(load_fn=list_loader(fetch, BATCH_SQL_POSTS, 'author_idx', 'pos', to_post))
        self.comments = DataLoader(load_fn=list_loader(fetch, BATCH_SQL_COMMENTS, 'post_idx', 'pos', to_comment))
        self.followers = DataLoader(load_fn=list_loader(fetch, BATCH_SQL_FOLLOWERS, 'parent', 'follower_pos', to_user))


def list_loader(fetch, sql: str, parent_col: str, pos_col: str, to: Callable[[Any], Any]):
    """A batch function over (parent idx, exclusive pos bound) keys: tuples, so the
    DataLoader's cache keys them as they are."""
    async def load(keys: list[tuple[int, int]]) -> list[list]:
        parents = list({parent for parent, _ in keys})
        bound = max(b for _, b in keys)
        by_parent: dict[int, list] = {}
        for r in await fetch(sql, parents, bound):
            by_parent.setdefault(r[parent_col], []).append((r[pos_col], to(r)))
        return [[v for pos, v in by_parent.get(parent, ()) if pos < b] for parent, b in keys]
    return load


class Batched:
    """Resolvers that only call load() on the request's loaders."""

    def __init__(self, naive: Naive):
        self.naive = naive

    def make_context(self) -> dict:
        return {LOADERS: Loaders(self.naive)}

    @staticmethod
    def _loaders(info) -> Loaders:
        loaders = info.context.get(LOADERS) if isinstance(info.context, dict) else None
        if loaders is None:
            raise RuntimeError('no DataLoaders in the request context: the server must use make_context()')
        return loaders

    def user(self, info, idx: int):
        return self._loaders(info).user.load(idx)

    def trending(self, bound: int):
        # A root field runs once per request: nothing to batch.
        return self.naive.trending(bound)

    def posts(self, info, parent: int, bound: int):
        return self._loaders(info).posts.load((parent, bound))

    def comments(self, info, parent: int, bound: int):
        return self._loaders(info).comments.load((parent, bound))

    def followers(self, info, parent: int, bound: int):
        return self._loaders(info).followers.load((parent, bound))


# Set once by configure() before the server listens.
SOURCE: Any = None


def configure(config: Config, pool: asyncpg.Pool):
    """The source the resolvers use; returns it (server.py asks it for per-request
    context in dataloader mode)."""
    global SOURCE
    naive = Naive(pool)
    SOURCE = naive if config.mode == 'naive' else Batched(naive)
    return SOURCE


@strawberry.type
class Query:
    @strawberry.field
    def user(self, info: strawberry.Info, id: strawberry.ID) -> Optional[User]:
        n = user_idx_from_id(id)
        return None if n < 0 else SOURCE.user(info, n)

    @strawberry.field
    def me(self, info: strawberry.Info) -> Optional[User]:
        return SOURCE.user(info, s.ME_USER)

    @strawberry.field
    def trending_posts(self, limit: Optional[int] = None) -> list[Post]:
        return SOURCE.trending(trending_bound(limit))

    @strawberry.field
    def authors(self) -> list[Author]:
        return AUTHORS


@strawberry.type
class Mutation:
    @strawberry.mutation
    def rename_user(self, id: strawberry.ID, name: str) -> Optional[User]:
        # Only the response-cache scenarios send it, never with a database; as in the Node
        # targets' database mode (no resolver there), it answers null and changes nothing.
        return None
