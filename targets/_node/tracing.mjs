// OpenTelemetry tracing for the Node servers' tracing variants (targets/<server>-tracing-*),
// preloaded before the unchanged server: `node --import ../_node/tracing.mjs ../<server>/server.mjs`.
//
// It is the set-up the servers' docs point their users to (none of the four has tracing
// built in): the OpenTelemetry Node SDK's tracer provider, a parent-based ratio sampler at
// GQLBENCH_TRACE_SAMPLING (default 1), the batch span processor and the OTLP/HTTP (JSON)
// exporter to the run's collector at GQLBENCH_OTLP_URL, and the instrumentations named in
// GQLBENCH_OTEL_INSTRUMENTATIONS (default "http,graphql"; Apollo Server's docs add "express").
// Without GQLBENCH_OTLP_URL it does nothing, so the variant then runs as its base.
//
// The packages are resolved from the server's folder (its package.json pins them), not from
// here: this file is shared and has no node_modules of its own.
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const INSTRUMENTATIONS = {
  http: ['@opentelemetry/instrumentation-http', 'HttpInstrumentation'],
  graphql: ['@opentelemetry/instrumentation-graphql', 'GraphQLInstrumentation'],
  express: ['@opentelemetry/instrumentation-express', 'ExpressInstrumentation'],
};

function fail(message) {
  console.error(`tracing.mjs: ${message}`);
  process.exit(2);
}

const otlp = process.env.GQLBENCH_OTLP_URL;
if (otlp) {
  if (!process.argv[1]) fail('no server script to trace (run: node --import tracing.mjs server.mjs)');
  const server = pathToFileURL(path.resolve(process.argv[1]));
  const require = createRequire(server);
  const ratio = Number(process.env.GQLBENCH_TRACE_SAMPLING ?? '1');
  if (!(ratio > 0 && ratio <= 1)) {
    fail(`GQLBENCH_TRACE_SAMPLING=${process.env.GQLBENCH_TRACE_SAMPLING}: give a ratio in (0, 1]`);
  }
  const names = (process.env.GQLBENCH_OTEL_INSTRUMENTATIONS ?? 'http,graphql')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const n of names) {
    if (!INSTRUMENTATIONS[n]) {
      fail(`GQLBENCH_OTEL_INSTRUMENTATIONS names '${n}'; known: ${Object.keys(INSTRUMENTATIONS).join(', ')}`);
    }
  }
  // The servers are ES modules: instrumentations patch what they import only through this
  // loader hook (import-in-the-middle); CommonJS packages are patched through require.
  register('@opentelemetry/instrumentation/hook.mjs', server);

  const {
    NodeTracerProvider,
    BatchSpanProcessor,
    ParentBasedSampler,
    TraceIdRatioBasedSampler,
  } = require('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation');

  const provider = new NodeTracerProvider({
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${otlp}/v1/traces` }))],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: names.map((n) => {
      const [pkg, cls] = INSTRUMENTATIONS[n];
      return new (require(pkg)[cls])();
    }),
  });
}
