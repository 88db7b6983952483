// Measurement 10: what the receiving options cost on a verified route, in-process (the endpoint's
// `handle`, one delivery at a time, 1 KiB JSON: signature, JSON, zod, handler), each delivery a new
// message id as the service sends them:
//   idempotency: the same route with a memory store (claim, handler, complete) against it without;
//   tracing off: `tracing: openTelemetry()` with no SDK started (the API's no-op tracer);
//   tracing on: an SDK recording every span (a batch processor; its exporter drops them).
// No target here: the targets (within 10%, within 2%) are on the route as served, in section 2 (Express).
import { createReceiver, defineDestination } from '@mailroom/core';
import { createMemoryStore } from '@mailroom/core/idempotency';
import { openTelemetry } from '@mailroom/core/tracing';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { check, log, report } from './lib/child.mjs';
import { MAILROOM_OPTIONS, PUBLIC_URL, orderBody, orderSchema, freshTokens, CURRENT_KEY, TRACE_PARENT } from './lib/fixtures.mjs';
import { alternateEndpoints } from './lib/rounds.mjs';
import { pairedRatio, summarise } from './lib/stats.mjs';

const section = '10. Receiving options';
const PATH = '/api/orders';

await report(async ({ smoke }) => {
  const body = orderBody(1024);
  // Each delivery signed anew, in every route's time alike: a token is used once.
  const token = freshTokens({ key: CURRENT_KEY, url: `${PUBLIC_URL}${PATH}`, rawBody: body });
  const orders = defineDestination({ name: 'orders', path: PATH, schema: orderSchema });
  let handled = 0;
  const handler = (message) => {
    if (message.body.items.length > 0) handled++;
  };
  let spans = 0;
  const countSpans = {
    export: (batch, done) => {
      spans += batch.length;
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const recording = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: countSpans })] });
  // The memory store as an app has it: 10,000 keys, the oldest evicted as new ones come.
  const routes = {
    plain: createReceiver(MAILROOM_OPTIONS).destination(orders, handler),
    idempotent: createReceiver({ ...MAILROOM_OPTIONS, idempotency: createMemoryStore() }).destination(orders, handler),
    untraced: createReceiver({ ...MAILROOM_OPTIONS, tracing: openTelemetry() }).destination(orders, handler),
    traced: createReceiver({ ...MAILROOM_OPTIONS, tracing: openTelemetry({ tracerProvider: recording }) }).destination(orders, handler),
  };
  let sequence = 0;
  const delivery = (messageId = `msg_bench_${sequence++}`) => ({
    method: 'POST',
    url: `${PUBLIC_URL}${PATH}`,
    headers: {
      'content-type': 'application/json',
      'upstash-signature': token(),
      'upstash-message-id': messageId,
      'upstash-retried': '0',
      traceparent: TRACE_PARENT,
    },
    rawBody: body,
  });

  // Correctness first: both answer 200 and run the handler; the idempotent one answers a repeat
  // without running it again.
  for (const [name, endpoint] of Object.entries(routes)) {
    const before = handled;
    const out = await endpoint.handle(delivery());
    check(out.status === 200 && handled === before + 1, `${name}: expected 200 and one handler call, got ${out.status}`);
  }
  const repeat = delivery();
  await routes.idempotent.handle(repeat);
  const again = await routes.idempotent.handle(delivery(repeat.headers['upstash-message-id']));
  check(again.headers['mailroom-already-handled'] === 'true', 'idempotent: a repeated message id was not answered as already handled');
  await recording.forceFlush();
  check(spans === 1, `traced: expected one exported span for one delivery, got ${spans}`);

  const samples = await alternateEndpoints(routes, delivery, { smoke, rounds: 12 });
  const ratio = pairedRatio(samples.idempotent, samples.plain);
  const off = pairedRatio(samples.untraced, samples.plain);
  const on = pairedRatio(samples.traced, samples.plain);
  log(
    `receiving options: plain ${summarise(samples.plain).median.toFixed(2)} µs, idempotent (memory) ${summarise(samples.idempotent).median.toFixed(2)} µs (${ratio.median.toFixed(3)}x), tracing off ${off.median.toFixed(3)}x, tracing on ${on.median.toFixed(3)}x`,
  );
  await recording.shutdown();
  return {
    id: 'receiving-options',
    rows: [
      {
        section,
        case: '1 KiB JSON, a new message id per delivery, in-process',
        contender: 'verified destination (sig+JSON+zod), no idempotency',
        unit: 'µs/msg',
        value: summarise(samples.plain),
        ratios: [],
        targets: [],
      },
      {
        section,
        case: '1 KiB JSON, a new message id per delivery, in-process',
        contender: 'the same with idempotency: a memory store',
        unit: 'µs/msg',
        value: summarise(samples.idempotent),
        ratios: [{ vs: 'no idempotency (time)', ...ratio }],
        // The target is on the route as served (section 2, Express, server CPU per request): here the
        // pipeline alone, without HTTP, so the store's few map operations weigh the most they can.
        targets: [],
      },
      {
        section,
        case: '1 KiB JSON, a new message id per delivery, in-process',
        contender: 'the same with tracing, no OpenTelemetry SDK started (tracing off)',
        unit: 'µs/msg',
        value: summarise(samples.untraced),
        ratios: [{ vs: 'no tracing (time)', ...off }],
        targets: [],
      },
      {
        section,
        case: '1 KiB JSON, a new message id per delivery, in-process',
        contender: 'the same with tracing, an SDK recording every span (tracing on)',
        unit: 'µs/msg',
        value: summarise(samples.traced),
        ratios: [{ vs: 'no tracing (time)', ...on }],
        targets: [],
      },
    ],
    checks: [
      'receiving options: the traced route exports one consumer span per delivery',
      'receiving options: both routes answer 200 and run the handler; the idempotent one answers a repeated message id 200 with Mailroom-Already-Handled without running it',
    ],
    notes: [
      "Receiving options: the endpoint's handle() in-process, one delivery at a time, alternating the two routes round by round; every delivery carries a new message id and a token of its own, signed in every route's time alike (a receiver with a store refuses a token it has seen), so the idempotent route claims a new token and a new key and completes the key each time. The traced routes get a delivery with a traceparent, as a traced send's are; tracing off is `tracing: openTelemetry()` before any SDK is started, tracing on an SDK with a batch processor whose exporter drops the spans.",
    ],
  };
});
