"""The "subscriptions" workload: one `ticks` stream that every subscriber receives, fed by a
single publisher task at GQLBENCH_PUBLISH_RATE ticks per second (targets/_node/
subscriptions.mjs is the contract: the same SDL, the same tick values and schedule).
Strawberry serves it over its own WebSocket transports (graphql-transport-ws and the
legacy graphql-ws subprotocol) on /graphql; the pub/sub is this module's, since Strawberry
ships none: each subscriber has a bounded queue the publisher puts every tick into."""
from __future__ import annotations

import asyncio
import math
import os
import sys
import time
from collections import deque
from typing import AsyncGenerator, Optional

import strawberry

# Ticks a slow subscriber may fall behind by before it skips the oldest (a gap in `seq` its
# client sees, as a lost tick), as async-graphql's broadcast channel does: without a bound
# a subscriber that cannot keep up would grow the process without limit.
TICKS_BACKLOG = 1024


@strawberry.type
class Tick:
    seq: int
    published_at: float


class Subscriber:
    """A deque and a wake-up future rather than an asyncio.Queue: the publisher's put is then
    a deque append and, only when the subscriber is waiting, one future result (a Queue's
    put_nowait does more work per tick, and every tick goes to every subscriber)."""

    __slots__ = ('ticks', 'waiter')

    def __init__(self):
        self.ticks: deque[Tick] = deque(maxlen=TICKS_BACKLOG)
        self.waiter: Optional[asyncio.Future] = None

    def put(self, tick: Tick) -> None:
        self.ticks.append(tick)  # maxlen: the oldest is dropped when full
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():
                waiter.set_result(None)


SUBSCRIBERS: set[Subscriber] = set()


def publish(tick: Tick) -> None:
    for sub in SUBSCRIBERS:
        sub.put(tick)


async def ticks_stream() -> AsyncGenerator[Tick, None]:
    sub = Subscriber()
    SUBSCRIBERS.add(sub)
    loop = asyncio.get_running_loop()
    try:
        while True:
            while sub.ticks:
                yield sub.ticks.popleft()
            sub.waiter = loop.create_future()
            await sub.waiter
    finally:
        # The client completed or went away: Strawberry closes (cancels) the generator.
        SUBSCRIBERS.discard(sub)


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def ticks(self) -> AsyncGenerator[Tick, None]:
        async for tick in ticks_stream():
            yield tick


def publish_rate_from_env(env=os.environ) -> Optional[float]:
    """GQLBENCH_PUBLISH_RATE (ticks per second) or None when unset; a bad value ends the
    process at start-up (exit 2): a run at a silently different rate would measure
    something else."""
    raw = env.get('GQLBENCH_PUBLISH_RATE', '')
    if raw == '':
        return None
    try:
        rate = float(raw)
    except ValueError:
        rate = math.nan
    if not math.isfinite(rate) or rate <= 0:
        print(f'invalid GQLBENCH_PUBLISH_RATE {raw!r}: expected ticks per second above 0',
              file=sys.stderr, flush=True)
        sys.exit(2)
    return rate


async def run_ticker(rate: float) -> None:
    """Publishes { seq, publishedAt } `rate` times a second, forever. publishedAt is
    wall-clock milliseconds since 1970 with sub-millisecond resolution, so a client on the
    same machine can subtract it from its receive time. Ticks are scheduled against the
    start time, not chained by a fixed delay: timer lateness never lowers the rate, and
    ticks that fell due while the loop was busy go out at once, so seq is gap-free at the
    source and any gap a client sees is a tick lost on the way."""
    period = 1.0 / rate
    start = time.monotonic()
    seq = 0
    while True:
        due = math.floor((time.monotonic() - start) / period) + 1
        while seq < due:
            publish(Tick(seq=seq, published_at=time.time() * 1000.0))
            seq += 1
        await asyncio.sleep(max(0.0, start + seq * period - time.monotonic()))
