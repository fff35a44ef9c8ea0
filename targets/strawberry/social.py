"""The "social" and "authors" workloads' data, as targets/_node/social.mjs and authors.mjs
make it: every value a pure function of integer indices and a fixed epoch, so this server's
answers equal the Node targets' byte for byte (`gqlbench check` compares them)."""
from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

USER_COUNT = 10_000
POSTS_PER_USER = 10
COMMENTS_PER_POST = 5
FOLLOWERS_PER_USER = 25
TRENDING_COUNT = 50
TRENDING_DEFAULT_LIMIT = 10
ME_USER = 1

FIRST = [
    'Ada', 'Alan', 'Barbara', 'Brian', 'Claude', 'Dennis', 'Donald', 'Edsger', 'Frances',
    'Grace', 'Guido', 'Hedy', 'Ivan', 'John', 'Ken', 'Leslie', 'Linus', 'Margaret', 'Niklaus',
    'Radia', 'Robin', 'Shafi', 'Sophie', 'Tim', 'Tony', 'Vint', 'Whitfield', 'Yukihiro',
]
LAST = [
    'Lovelace', 'Turing', 'Liskov', 'Kernighan', 'Shannon', 'Ritchie', 'Knuth', 'Dijkstra',
    'Allen', 'Hopper', 'Rossum', 'Lamarr', 'Sutherland', 'McCarthy', 'Thompson', 'Lamport',
    'Torvalds', 'Hamilton', 'Wirth', 'Perlman', 'Milner', 'Goldwasser', 'Wilson', 'Berners',
    'Hoare', 'Cerf', 'Diffie', 'Matsumoto', 'Backus',
]
TOPICS = [
    'caching', 'query planning', 'schema design', 'federation', 'pagination', 'batching',
    'persisted queries', 'subscriptions', 'error handling', 'rate limiting', 'tracing',
    'code generation', 'input validation', 'nullability', 'connection pooling', 'testing',
]
WORDS = (
    'the server resolves each field of the selection set and returns a tree of values that '
    'mirrors the query exactly while the client decides which fields it needs and the schema '
    'describes every type that can be asked for so tools can check a document before it runs'
).split(' ')

EPOCH = datetime(2020, 1, 1, tzinfo=timezone.utc)
AGE_REFERENCE = datetime(2025, 1, 1, tzinfo=timezone.utc)
DAY_MS = 86_400_000
EXCERPT_DEFAULT_LENGTH = 80
WORDS_PER_MINUTE = 200


def iso(ms: int) -> str:
    """JavaScript's Date.toISOString(): milliseconds always, a Z."""
    t = EPOCH + timedelta(milliseconds=ms)
    return t.strftime('%Y-%m-%dT%H:%M:%S.') + f'{t.microsecond // 1000:03d}Z'


def _content(i: int) -> str:
    parts: list[str] = []
    w = 0
    while len(' '.join(parts)) < 280 + (i % 7) * 20:
        parts.append(WORDS[(i * 5 + w * 3) % len(WORDS)])
        w += 1
    return f"Notes on {TOPICS[i % len(TOPICS)]} #{i}: {' '.join(parts)}."


CONTENT_POOL = [_content(i) for i in range(64)]


@dataclass
class UserRow:
    index: int
    id: str
    name: str
    email: str
    first_name: str
    last_name: str
    created_at: str
    created_ms: int


@dataclass
class PostRow:
    index: int
    id: str
    title: str
    content: str
    published_at: str
    view_count: int
    author_index: int


@dataclass
class CommentRow:
    id: str
    text: str
    author_index: int


def _user(u: int) -> UserRow:
    first = FIRST[u % len(FIRST)]
    last = LAST[(u * 7 + 3) % len(LAST)]
    return UserRow(
        index=u,
        id=f'bench-user-{u}',
        name=f'{first} {last}',
        email=f'{first.lower()}.{last.lower()}.{u}@bench.example.com',
        first_name=first,
        last_name=last,
        created_at=iso(u * 7_261_000),
        created_ms=u * 7_261_000,
    )


USERS = [_user(u) for u in range(USER_COUNT)]


def _post(p: int) -> PostRow:
    author = p // POSTS_PER_USER
    return PostRow(
        index=p,
        id=f'post-{p}',
        title=f'{TOPICS[(p * 3) % len(TOPICS)]} in practice, part {(p % POSTS_PER_USER) + 1}',
        content=CONTENT_POOL[(p * 13) % len(CONTENT_POOL)],
        published_at=iso(author * 7_261_000 + ((p % POSTS_PER_USER) + 1) * 3_600_000),
        view_count=(p * 7919) % 100_000,
        author_index=author,
    )


POSTS = [_post(p) for p in range(USER_COUNT * POSTS_PER_USER)]
TRENDING = [POSTS[(k * 7_919 + 4_243) % len(POSTS)] for k in range(TRENDING_COUNT)]


def comment(post_index: int, k: int) -> CommentRow:
    n = post_index * COMMENTS_PER_POST + k
    return CommentRow(
        id=f'comment-{n}',
        text=f'Comment {k + 1} on post-{post_index}: {TOPICS[n % len(TOPICS)]} is worth it.',
        author_index=(post_index * 7 + k * 1_013) % USER_COUNT,
    )


def cap(total: int, limit: int | None) -> int:
    """Every list's `limit`: absent or null = all; negative = none."""
    if limit is None:
        return total
    return 0 if limit < 0 else min(total, limit)


def user_index_from_id(id_: str) -> int:
    """"bench-user-N" or "N" (canonical decimal) for the same user; anything else -1."""
    s = str(id_)
    digits = s[11:] if s.startswith('bench-user-') else s
    if not digits or len(digits) > 5 or not digits.isascii() or not digits.isdigit():
        return -1
    n = int(digits)
    if n >= USER_COUNT or str(n) != digits:
        return -1
    return n


def word_count(text: str) -> int:
    return sum(1 for w in text.split(' ') if w)


def account_age_days(created_ms: int) -> int:
    """Days from an account's creation (ms after the epoch) to the fixed reference date."""
    ms = (AGE_REFERENCE - EPOCH) // timedelta(milliseconds=1) - created_ms
    return max(0, ms // DAY_MS)


_NOT_SLUG = re.compile(r'[^a-z0-9]+')


def slug(title: str, index: int) -> str:
    s = _NOT_SLUG.sub('-', title.lower())
    s = s[1:] if s.startswith('-') else s
    s = s[:-1] if s.endswith('-') else s
    return f'{s}-{index}'


def excerpt(content: str, length: int | None) -> str:
    n = EXCERPT_DEFAULT_LENGTH if length is None else max(0, length)
    if len(content) <= n:
        return content
    return '' if n == 0 else f'{content[:n].rstrip()}...'


def reading_time_minutes(content: str) -> int:
    return max(1, math.ceil(word_count(content) / WORDS_PER_MINUTE))


AUTHOR_NAMES = [
    'Chinua Achebe', 'Isabel Allende', 'Margaret Atwood', 'Jorge Luis Borges', 'Italo Calvino',
    'Albert Camus', 'Miguel de Cervantes', 'Fyodor Dostoevsky', 'George Eliot', 'Gabriel Garcia Marquez',
    'Nikolai Gogol', 'Kazuo Ishiguro', 'Franz Kafka', 'Ursula K. Le Guin', 'Naguib Mahfouz',
    'Toni Morrison', 'Haruki Murakami', 'Orhan Pamuk', 'Jose Saramago', 'Virginia Woolf',
]
BOOK_WORDS = ['Silent', 'River', 'Glass', 'Northern', 'Garden', 'Winter', 'Paper', 'Harbour',
              'Lantern', 'Orchard', 'Distant', 'Salt']


def book_name(a: int, b: int) -> str:
    n = len(BOOK_WORDS)
    return f'The {BOOK_WORDS[(a + b * 5) % n]} {BOOK_WORDS[(a * 3 + b + 7) % n]}'


def md5(text: str) -> str:
    """Hashed per request: the authors workload's unit of resolver work."""
    return hashlib.md5(text.encode()).hexdigest()
