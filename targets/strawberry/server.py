"""Strawberry (strawberry-graphql) on uvicorn, one process, one worker: the Python server
of the servers suite, serving social.py's data through schema.py's code-first types.

Strawberry as shipped: its ASGI GraphQL app (GraphiQL off), every request parsed,
validated and executed by graphql-core (no parser or validation cache: those are opt-in
extensions), the depth limit by Strawberry's QueryDepthLimiter (max_depth 10, a port of
graphql-depth-limit). uvicorn with uvloop and httptools (what `uvicorn[standard]` installs),
access log off. Listens on HOST:PORT (127.0.0.1:4000 by default), /graphql only.

Subscriptions (ticks.py): Strawberry's graphql-transport-ws and graphql-ws WebSocket
transports on the same /graphql path (uvicorn's websockets-sansio implementation), ticks
published by one task at GQLBENCH_PUBLISH_RATE (no task at all without it).

With GQLBENCH_RESOLVERS=naive|dataloader (the social-db workload) the schema is db.py's,
served from PostgreSQL through an asyncpg pool opened on the server's own event loop
before it listens; in dataloader mode every request's context carries fresh DataLoaders."""
import asyncio
import os
import sys
from importlib.metadata import version

import strawberry
import uvicorn
from strawberry.asgi import GraphQL
from strawberry.extensions import QueryDepthLimiter

import ticks

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


def make_schema(module) -> strawberry.Schema:
    return strawberry.Schema(
        query=module.Query,
        mutation=module.Mutation,
        # Both schemas (memory and database) have the Node targets' Subscription type.
        subscription=ticks.Subscription,
        # A factory: Strawberry builds the extension afresh for each request (an instance
        # is deprecated since 0.3xx, strawberry-graphql/strawberry#4369).
        extensions=[lambda: QueryDepthLimiter(max_depth=DEPTH_LIMIT)],
    )


class DataLoaderGraphQL(GraphQL):
    """Strawberry's documented place for per-request DataLoaders: the context getter, which
    runs once per GraphQL request (a loader kept longer would serve other requests' rows
    from its cache)."""

    def __init__(self, schema, source, **kwargs):
        super().__init__(schema, **kwargs)
        self.source = source

    async def get_context(self, request, response):
        context = self.source.make_context()
        context['request'] = request
        context['response'] = response
        return context


# Read (and checked) before the server listens; the ticker itself starts in serve().
PUBLISH_RATE = ticks.publish_rate_from_env()

# Each mode imports only its own module: schema.py builds the in-memory users and posts at
# import, db.py loads asyncpg; neither is needed by the other mode.
DB_CONFIG = None
if os.environ.get('GQLBENCH_RESOLVERS', '') == '':
    import schema as memory

    graphql_app = GraphQL(make_schema(memory), graphql_ide=None)
else:
    import db

    DB_CONFIG = db.config_from_env()
    # graphql_app is set by serve() once the pool exists (it needs the running loop).


async def app(scope, receive, send):
    """/graphql to Strawberry (HTTP and WebSocket); anything else 404 or a refused
    WebSocket (lifespan events ignored)."""
    if scope['type'] == 'websocket' and scope['path'] != GRAPHQL_PATH:
        # Closing before accepting refuses the upgrade (uvicorn answers HTTP 403).
        await receive()
        await send({'type': 'websocket.close', 'code': 1008})
        return
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


async def serve(server: uvicorn.Server) -> None:
    global graphql_app
    pool = None
    if DB_CONFIG is not None:
        try:
            pool = await db.open_pool(DB_CONFIG)
        except Exception as err:  # a bad URL: say so and exit rather than serve nothing
            print(f'strawberry: cannot open the database pool: {err}', file=sys.stderr, flush=True)
            sys.exit(1)
        source = db.configure(DB_CONFIG, pool)
        schema = make_schema(db)
        if DB_CONFIG.mode == 'dataloader':
            graphql_app = DataLoaderGraphQL(schema, source, graphql_ide=None)
        else:
            graphql_app = GraphQL(schema, graphql_ide=None)
        print(f'strawberry: {DB_CONFIG.mode} resolvers on PostgreSQL (asyncpg {db.asyncpg.__version__}, '
              f'pool max {DB_CONFIG.pool_size})', flush=True)
    ticker = None
    if PUBLISH_RATE is not None:
        ticker = asyncio.get_running_loop().create_task(ticks.run_ticker(PUBLISH_RATE))
        print(f'strawberry: publishing {PUBLISH_RATE:g} ticks/s on subscription "ticks"', flush=True)
    try:
        await server.serve()
    finally:
        if ticker is not None:
            ticker.cancel()
        if pool is not None:
            # Bounded: a connection stuck on a dead database must not hold the exit.
            try:
                await asyncio.wait_for(pool.close(), timeout=1)
            except Exception:
                pool.terminate()


def main() -> None:
    host = os.environ.get('HOST', '127.0.0.1')
    config = uvicorn.Config(
        app, host=host, port=port(), workers=1, loop='uvloop', http='httptools',
        # Named rather than 'auto' (which picks the same today): uvicorn's implementation
        # over websockets' sans-I/O API, not its deprecated legacy one.
        ws='websockets-sansio',
        access_log=False, log_level='warning', timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    print(f"ready: strawberry {version('strawberry-graphql')} on uvicorn {uvicorn.__version__} "
          f'(python {sys.version.split()[0]}, pid {os.getpid()})', flush=True)
    # uvicorn's loop setting is applied by Server.run() through a loop factory, never by
    # serve(): asyncio.run(server.serve()) ran on the stdlib loop. The same factory here
    # (uvloop's), with our own coroutine so the pool is opened on the serving loop.
    with asyncio.Runner(loop_factory=config.get_loop_factory()) as runner:
        runner.run(serve(server))


if __name__ == '__main__':
    main()
