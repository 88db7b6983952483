// Measurement 11: what each idempotency store costs a verified route, in-process (the endpoint's
// `handle`, one delivery at a time, 1 KiB JSON, a new message id each): the route without a store,
// then with the memory store, Redis (ioredis) and Postgres (pg), each claim and completion a round
// trip to the server. The bench starts no database: it measures the servers named by
//   BENCH_REDIS_URL     e.g. redis://127.0.0.1:6379
//   BENCH_POSTGRES_URL  e.g. postgres://postgres@127.0.0.1:5432/postgres
// and reports a store as pending when its variable is unset. No target: the figure is the round trips.
import { createReceiver, defineDestination } from '@mailroom/core';
import { createMemoryStore, createPostgresStore, createRedisStore } from '@mailroom/core/idempotency';
import Redis from 'ioredis';
import pg from 'pg';
import { check, log, report } from './lib/child.mjs';
import { CURRENT_KEY, MAILROOM_OPTIONS, PUBLIC_URL, orderBody, orderSchema, freshTokens } from './lib/fixtures.mjs';
import { alternateEndpoints } from './lib/rounds.mjs';
import { pairedRatio, summarise } from './lib/stats.mjs';

const section = '11. Idempotency stores';
const PATH = '/api/orders';
const CASE = '1 KiB JSON, a new message id per delivery, in-process, one at a time';

await report(async ({ smoke }) => {
  const body = orderBody(1024);
  // Each delivery signed anew, in every route's time alike: a token is used once.
  const token = freshTokens({ key: CURRENT_KEY, url: `${PUBLIC_URL}${PATH}`, rawBody: body });
  const orders = defineDestination({ name: 'orders', path: PATH, schema: orderSchema });
  let handled = 0;
  const handler = (message) => {
    if (message.body.items.length > 0) handled++;
  };
  const run = `${process.pid}_${Date.now()}`;
  const redis = process.env.BENCH_REDIS_URL ? new Redis(process.env.BENCH_REDIS_URL, { lazyConnect: true }) : undefined;
  const pool = process.env.BENCH_POSTGRES_URL ? new pg.Pool({ connectionString: process.env.BENCH_POSTGRES_URL, max: 2 }) : undefined;
  const table = `mailroom_bench_${run}`;
  try {
    await redis?.connect();
    const stores = {
      memory: createMemoryStore(),
      ...(redis ? { redis: createRedisStore(redis, { keyPrefix: `mailroom-bench:${run}:` }) } : {}),
      ...(pool ? { postgres: createPostgresStore(pool, { table }) } : {}),
    };
    const routes = {
      plain: createReceiver(MAILROOM_OPTIONS).destination(orders, handler),
      ...Object.fromEntries(
        Object.entries(stores).map(([name, store]) => [
          name,
          createReceiver({ ...MAILROOM_OPTIONS, idempotency: store }).destination(orders, handler),
        ]),
      ),
    };
    let sequence = 0;
    const delivery = (messageId = `msg_bench_${run}_${sequence++}`) => ({
      method: 'POST',
      url: `${PUBLIC_URL}${PATH}`,
      headers: {
        'content-type': 'application/json',
        'upstash-signature': token(),
        'upstash-message-id': messageId,
        'upstash-retried': '0',
      },
      rawBody: body,
    });

    // Correctness first: every route answers 200 and runs the handler once; every store answers a
    // repeated message id as already handled (Postgres creates its table on this first use).
    for (const [name, endpoint] of Object.entries(routes)) {
      const before = handled;
      const repeat = delivery();
      const first = await endpoint.handle(repeat);
      check(first.status === 200 && handled === before + 1, `${name}: expected 200 and one handler call, got ${first.status}`);
      if (name === 'plain') continue;
      const again = await endpoint.handle(delivery(repeat.headers['upstash-message-id']));
      check(
        again.headers['mailroom-already-handled'] === 'true' && handled === before + 1,
        `${name}: a repeated message id was handled again`,
      );
    }

    const samples = await alternateEndpoints(routes, delivery, { smoke, rounds: 10 });
    log(
      `idempotency stores: ${Object.keys(routes)
        .map((name) => `${name} ${summarise(samples[name]).median.toFixed(1)} µs`)
        .join(', ')}`,
    );
    const label = {
      memory: 'memory store',
      redis: 'Redis store (ioredis, a claim and a completion: two round trips)',
      postgres: 'Postgres store (pg, a claim and a completion: two queries)',
    };
    const rows = [
      {
        section,
        case: CASE,
        contender: 'verified destination, no store',
        unit: 'µs/msg',
        value: summarise(samples.plain),
        ratios: [],
        targets: [],
      },
      ...Object.keys(stores).map((name) => ({
        section,
        case: CASE,
        contender: label[name],
        unit: 'µs/msg',
        value: summarise(samples[name]),
        ratios: [{ vs: 'no store (time)', ...pairedRatio(samples[name], samples.plain) }],
        targets: [],
      })),
      ...['redis', 'postgres']
        .filter((name) => !(name in stores))
        .map((name) => ({
          section,
          case: CASE,
          contender: label[name],
          unit: 'µs/msg',
          note: `pending: set BENCH_${name.toUpperCase()}_URL`,
          ratios: [],
          targets: [],
        })),
    ];
    return {
      id: 'idempotency-stores',
      rows,
      checks: [
        `idempotency stores (${Object.keys(stores).join(', ')}): 200 and one handler call per message; a repeated id answered as already handled`,
      ],
      notes: [
        'Idempotency stores: the endpoint in-process, one delivery at a time, alternating the routes round by round, against the servers named by BENCH_REDIS_URL and BENCH_POSTGRES_URL (the bench starts none). Each delivery, signed anew, claims its token and its key and completes the key: for Redis and Postgres three round trips, which is the whole of the difference.',
      ],
    };
  } finally {
    if (pool) await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
    await pool?.end();
    redis?.disconnect();
  }
});
