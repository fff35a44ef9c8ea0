// The "subscriptions" workload: one `ticks` stream that every subscriber receives, fed by a
// single publisher timer. The servers differ only in transport and pub/sub (each uses its
// own, see their server.mjs); what is shared here is the SDL, the publisher and the
// WebSocket shutdown.
//
// No imports of packages (see social.mjs): the pub/sub and the WebSocket server are the
// target's own; only their publish function and client sets are handed in.

export const SUBSCRIPTION_TYPES = /* GraphQL */ `
type Subscription {
  ticks: Tick!
}

type Tick {
  seq: Int!
  publishedAt: Float!
}
`;

// Every server publishes `{ ticks: tick }` on this topic, so the default field resolver
// (payload[fieldName]) picks the tick out of the payload in all three.
export const TICKS_TOPIC = 'ticks';

// GQLBENCH_PUBLISH_RATE (ticks per second) or null when unset. A bad value ends the process
// at start-up: a run with a silently different rate would measure something else.
export function publishRateFromEnv(env = process.env) {
  const raw = env.GQLBENCH_PUBLISH_RATE;
  if (raw === undefined || raw === '') return null;
  const rate = Number(raw);
  if (!Number.isFinite(rate) || rate <= 0) {
    console.error(`invalid GQLBENCH_PUBLISH_RATE ${JSON.stringify(raw)}: expected ticks per second above 0`);
    process.exit(2);
  }
  return rate;
}

// Publishes { seq, publishedAt } through `publish` at `rate` per second until stopped.
// publishedAt is wall-clock milliseconds since the Unix epoch with sub-millisecond
// resolution, so a client on the same machine can subtract it from its receive time.
//
// Ticks are scheduled against the start time, not chained by a fixed delay: timer lateness
// then never lowers the rate, and ticks that fell due while the event loop was busy are
// published at once. seq is therefore gap-free at the source, and any gap a client sees is a
// tick lost on the way.
export function startTicker(publish, rate) {
  const periodMs = 1000 / rate;
  const start = performance.now();
  let seq = 0;
  let timer = null;
  const send = () => {
    const tick = { seq, publishedAt: performance.timeOrigin + performance.now() };
    seq++;
    try {
      const r = publish(tick);
      if (typeof r?.catch === 'function') r.catch((err) => console.error('tick publish failed:', err));
    } catch (err) {
      console.error('tick publish failed:', err);
    }
  };
  const run = () => {
    const due = Math.floor((performance.now() - start) / periodMs) + 1;
    while (seq < due) send();
    timer = setTimeout(run, Math.max(0, start + seq * periodMs - performance.now()));
    timer.unref();
  };
  run();
  return {
    stop() {
      clearTimeout(timer);
      timer = null;
    },
  };
}

// The ticker of GQLBENCH_PUBLISH_RATE, read (and checked) when created, before the server
// listens; start(publish) once the pub/sub exists. Unset, start() does nothing: no timer
// exists at all, so the other benchmarks run on an undisturbed event loop.
export function tickerFromEnv(name) {
  const rate = publishRateFromEnv();
  let ticker = null;
  return {
    start(publish) {
      if (rate === null || ticker) return;
      ticker = startTicker(publish, rate);
      console.log(`${name}: publishing ${rate} ticks/s on subscription "${TICKS_TOPIC}"`);
    },
    stop() {
      ticker?.stop();
    },
  };
}

// Closes every WebSocket of a `ws` client set with 1001 (going away) and terminates those
// whose peer has not completed the closing handshake within waitMs. An upgraded socket is
// no longer one of the HTTP server's connections, so closeAllConnections() does not end
// it, and ws would wait up to 30 s for the peer: longer than the shutdown grace.
export function closeWebSockets(clients, waitMs = 200) {
  const sockets = [...clients];
  if (sockets.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const pending = new Set(sockets);
    const done = (s) => {
      pending.delete(s);
      if (pending.size === 0) {
        clearTimeout(timer);
        resolve();
      }
    };
    const timer = setTimeout(() => {
      for (const s of pending) s.terminate();
      resolve();
    }, waitMs);
    for (const s of sockets) {
      if (s.readyState === 3 /* CLOSED */) {
        done(s);
        continue;
      }
      s.once('close', () => done(s));
      try {
        s.close(1001, 'server shutting down');
      } catch {
        s.terminate();
      }
    }
  });
}
