"""Strawberry (strawberry-graphql) on uvicorn, one process, one worker: the Python server
of the servers suite, serving social.py's data through schema.py's code-first types.

Strawberry as shipped: its ASGI GraphQL app (GraphiQL off), every request parsed,
validated and executed by graphql-core (no parser or validation cache: those are opt-in
extensions), the depth limit by Strawberry's QueryDepthLimiter (max_depth 10, a port of
graphql-depth-limit). uvicorn with uvloop and httptools (what `uvicorn[standard]` installs),
access log off. Listens on HOST:PORT (127.0.0.1:4000 by default), /graphql only."""
import asyncio
import os
import sys
from importlib.metadata import version

import strawberry
import uvicorn
from strawberry.asgi import GraphQL
from strawberry.extensions import QueryDepthLimiter

from schema import Mutation, Query

DEPTH_LIMIT = 10
GRAPHQL_PATH = '/graphql'


def port() -> int:
    raw = os.environ.get('PORT', '')
    if raw == '':
        return 4000
    try:
        n = int(raw)
    except ValueError:
        n = -1
    if not 0 <= n <= 65535:
        print(f'invalid PORT {raw!r}', file=sys.stderr)
        sys.exit(2)
    return n


schema = strawberry.Schema(
    query=Query,
    mutation=Mutation,
    # A factory: Strawberry builds the extension afresh for each request (an instance is
    # deprecated since 0.3xx, strawberry-graphql/strawberry#4369).
    extensions=[lambda: QueryDepthLimiter(max_depth=DEPTH_LIMIT)],
)
graphql_app = GraphQL(schema, graphql_ide=None)


async def app(scope, receive, send):
    """/graphql to Strawberry; anything else 404 (lifespan events ignored)."""
    if scope['type'] == 'http' and scope['path'] != GRAPHQL_PATH:
        body = b'{"errors":[{"message":"not found"}]}'
        await send({'type': 'http.response.start', 'status': 404,
                    'headers': [(b'content-type', b'application/json'),
                                (b'content-length', str(len(body)).encode())]})
        await send({'type': 'http.response.body', 'body': body})
        return
    if scope['type'] == 'lifespan':
        while True:
            message = await receive()
            if message['type'] == 'lifespan.startup':
                await send({'type': 'lifespan.startup.complete'})
            elif message['type'] == 'lifespan.shutdown':
                await send({'type': 'lifespan.shutdown.complete'})
                return
    await graphql_app(scope, receive, send)


def main() -> None:
    host = os.environ.get('HOST', '127.0.0.1')
    config = uvicorn.Config(
        app, host=host, port=port(), workers=1, loop='uvloop', http='httptools',
        access_log=False, log_level='warning', timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    print(f"ready: strawberry {version('strawberry-graphql')} on uvicorn {uvicorn.__version__} "
          f'(python {sys.version.split()[0]}, pid {os.getpid()})', flush=True)
    asyncio.run(server.serve())


if __name__ == '__main__':
    main()
