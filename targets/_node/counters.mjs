// Execution counters for the response-cache scenarios: how many root fields this server
// has resolved since it started (index.mjs counts every root Query resolver call), served
// as JSON on a port of their own, GQLBENCH_COUNTERS_PORT, which gqlbench gives a server in
// those scenarios. Reading them never passes through the server under test or its cache,
// so a cache's hits are exactly the requests that did not get here. Without the variable
// nothing listens.

import { createServer } from 'node:http';

let executions = 0;

export function countExecution() {
  executions++;
}

const port = Number(process.env.GQLBENCH_COUNTERS_PORT || 0);
if (port > 0) {
  const server = createServer((req, res) => {
    const found = req.url === '/counters';
    const body = found ? JSON.stringify({ executions }) : '{"error":"GET /counters"}';
    res.writeHead(found ? 200 : 404, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  server.on('error', (err) => {
    console.error(`counters: cannot listen on 127.0.0.1:${port}: ${err.message}`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1');
  // It never keeps the process alive: the server's own shutdown decides when it ends.
  server.unref();
}
