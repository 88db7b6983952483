import { createMemoryStore } from '@mailroom/core/idempotency';
import { openTelemetry } from '@mailroom/core/tracing';
import { createApp } from './app';

const port = Number(process.env.PORT ?? 3000);
const { app } = createApp({
  // Each order is handled once however often it is delivered (one instance: memory; several: Redis or Postgres).
  idempotency: createMemoryStore(),
  // Spans through @opentelemetry/api: nothing is recorded until an OpenTelemetry SDK is started
  // (docs/tracing.md), e.g. node --import ./otel.mjs dist/server.js.
  tracing: openTelemetry(),
  onError: (error, { stage }) => stage !== 'handler' && console.warn(`[example] refused at ${stage}: ${String(error)}`),
});
const server = app.listen(port, '127.0.0.1', () => {
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  // POST /send delivers back here: to the port this app got (PORT=0 picks a free one) unless told otherwise.
  process.env.MAILROOM_APP_URL ??= `http://127.0.0.1:${actual}`;
  console.log(`example-express listening on http://127.0.0.1:${actual} (POST /orders, /callbacks, /failures, /send; GET /events)`);
});
