import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReceiver,
  defineDestination,
  IdempotencyStoreError,
  ValidationError,
  type IdempotencyStore,
  type ReceiverOptions,
} from '../src';
import { handleNodeRequest, writeOutbound } from '../src/adapter';
import { createMemoryStore, createPostgresStore, createRedisStore, deleteExpiredRows } from '../src/idempotency';
import { signRequest } from '../src/testing';
import { type RealServer, startPostgres, startRedis } from '@mailroom/test-machine';

// Exactly-once handling over at-least-once delivery, over every store: the memory store, Redis (through
// ioredis and through node-redis) and Postgres, the servers real and started here. Deliveries go
// through real sockets to receivers that share one store, as two instances of an app would.

const KEY = 'sig_idempotency_test';
const order = defineDestination({
  name: 'order',
  schema: { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } },
});

let redis: RealServer;
let postgres: RealServer;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
}, 600_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await Promise.all([redis?.stop(), postgres?.stop()]);
});

/** Each store, fresh: a new key prefix or table per call, so tests never share state. */
let fresh = 0;
const STORES: Array<[string, () => Promise<IdempotencyStore>]> = [
  ['memory', async () => createMemoryStore()],
  [
    'Redis (ioredis)',
    async () => {
      const client = new Redis({ path: redis.socket, lazyConnect: true });
      await client.connect();
      closers.push(() => client.quit());
      return createRedisStore(client, { keyPrefix: `t${++fresh}:` });
    },
  ],
  [
    'Redis (node-redis)',
    async () => {
      const client = createClient({ socket: { path: redis.socket, tls: false } });
      await client.connect();
      closers.push(() => client.quit());
      return createRedisStore(client, { keyPrefix: `t${++fresh}:` });
    },
  ],
  [
    'Postgres (pg)',
    async () => {
      const pool = new pg.Pool({ host: postgres.socket, user: 'postgres', database: 'postgres', max: 10 });
      closers.push(() => pool.end());
      return createPostgresStore(pool, { table: `handled_${++fresh}` });
    },
  ],
];

/** An app instance: a receiver on a real socket, its endpoint behind the shared store. */
async function instance(handler: (message: { messageId: string | undefined; body: unknown }) => unknown, options: ReceiverOptions) {
  const receiver = createReceiver({ currentSigningKey: KEY, nextSigningKey: KEY, onError: () => {}, ...options });
  const endpoint = receiver.destination(order, (message) => handler(message));
  const server = http.createServer((req, res) => void handleNodeRequest(endpoint, req).then((out) => writeOutbound(res, out)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`;
}

/** One delivery of `messageId` to `url`, signed for the path every instance serves. */
async function deliver(url: string, messageId: string, body: unknown = { messageId }) {
  const signed = await signRequest({ url: `http://app.test/orders`, body, key: KEY, messageId });
  const response = await fetch(url, { method: 'POST', headers: signed.headers, body: signed.body });
  return {
    status: response.status,
    handled: response.headers.get('mailroom-already-handled'),
    retryAfter: response.headers.get('retry-after'),
  };
}

/** The key a delivery of `deliver(url, messageId)` claims: the message id bound to the signed URL and body hash. */
const claimKey = (messageId: string) =>
  `${messageId} http://app.test/orders ${createHash('sha256').update(JSON.stringify({ messageId })).digest('base64url')}`;

const settle = () => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return { gate, open };
};

describe.each(STORES)('idempotent handlers over the %s store', (_name, makeStore) => {
  it('runs the handler once: a later delivery of a handled message is answered 2xx, saying so, without running it', async () => {
    const store = await makeStore();
    const calls: string[] = [];
    const url = await instance(({ messageId }) => void calls.push(messageId!), { idempotency: store, publicUrl: 'http://app.test' });
    await expect(deliver(url, 'msg_a')).resolves.toMatchObject({ status: 200, handled: null });
    await expect(deliver(url, 'msg_a')).resolves.toMatchObject({ status: 200, handled: 'true' });
    await expect(deliver(url, 'msg_b')).resolves.toMatchObject({ status: 200, handled: null });
    expect(calls).toEqual(['msg_a', 'msg_b']);
  });

  it('runs the handler again on a retry of a delivery whose handler failed', async () => {
    const store = await makeStore();
    let fail = true;
    let calls = 0;
    const url = await instance(
      () => {
        calls += 1;
        if (fail) throw new Error('the database is down');
      },
      { idempotency: store, publicUrl: 'http://app.test' },
    );
    await expect(deliver(url, 'msg_retry')).resolves.toMatchObject({ status: 500 });
    fail = false;
    await expect(deliver(url, 'msg_retry')).resolves.toMatchObject({ status: 200, handled: null });
    await expect(deliver(url, 'msg_retry')).resolves.toMatchObject({ status: 200, handled: 'true' });
    expect(calls).toBe(2);
  });

  it('answers a concurrent copy 409 with Retry-After while the first runs, and 2xx once it finished', async () => {
    const store = await makeStore();
    const { gate, open } = settle();
    let calls = 0;
    const options = { idempotency: store, publicUrl: 'http://app.test' };
    const handler = async () => {
      calls += 1;
      await gate;
    };
    const [first, second] = [await instance(handler, options), await instance(handler, options)];
    const running = deliver(first, 'msg_both');
    // The first holds its claim once its handler runs.
    await expect.poll(() => calls).toBe(1);
    const copy = await deliver(second, 'msg_both');
    expect(copy.status).toBe(409);
    expect(Number(copy.retryAfter)).toBeGreaterThanOrEqual(1);
    open();
    await expect(running).resolves.toMatchObject({ status: 200, handled: null });
    await expect(deliver(second, 'msg_both')).resolves.toMatchObject({ status: 200, handled: 'true' });
    expect(calls).toBe(1);
  });

  it('lets a retry take over the claim of a holder that crashed once its lease ends, so nothing is lost', async () => {
    const store = await makeStore();
    let calls = 0;
    const url = await instance(() => void (calls += 1), { idempotency: { store, leaseSeconds: 0.3 }, publicUrl: 'http://app.test' });
    // A holder that claimed and died: it never completes nor releases.
    await expect(Promise.resolve(store.claim(claimKey('msg_crash'), 'crashed-instance', 300))).resolves.toEqual({
      state: 'claimed',
    });
    await expect(deliver(url, 'msg_crash')).resolves.toMatchObject({ status: 409 });
    await new Promise((resolve) => setTimeout(resolve, 350));
    await expect(deliver(url, 'msg_crash')).resolves.toMatchObject({ status: 200, handled: null });
    expect(calls).toBe(1);
  });

  it('refuses a token replayed under another message id, so the victim is still handled, and a token replayed as it was', async () => {
    const store = await makeStore();
    const handled: string[] = [];
    const reported: string[] = [];
    const receiver = createReceiver({
      currentSigningKey: KEY,
      nextSigningKey: KEY,
      onError: (error) => void reported.push((error as { reason?: string }).reason ?? ''),
      idempotency: store,
    });
    const endpoint = receiver.destination(order, (message) => void handled.push(message.messageId!));
    const post = (headers: Record<string, string>, body: Uint8Array) =>
      endpoint.handle({ method: 'POST', url: 'http://app.test/orders', headers, rawBody: body });
    // The attacker's own message, whose token it read: replayed under the victim's id.
    const own = await signRequest({ url: 'http://app.test/orders', body: { order: 'same' }, key: KEY, messageId: 'msg_attacker' });
    await expect(post(own.headers, own.body)).resolves.toMatchObject({ status: 200 });
    const forged = { ...own.headers, 'Service-Message-Id': 'msg_victim' };
    await expect(post(forged, own.body)).resolves.toMatchObject({ status: 401 });
    await expect(post(own.headers, own.body)).resolves.toMatchObject({ status: 401 });
    expect(reported).toEqual(['replayed', 'replayed']);
    // The victim's real delivery, even with the very same body, runs its handler.
    const victim = await signRequest({ url: 'http://app.test/orders', body: { order: 'same' }, key: KEY, messageId: 'msg_victim' });
    const answer = await post(victim.headers, victim.body);
    expect([answer.status, answer.headers['mailroom-already-handled']]).toEqual([200, undefined]);
    expect(handled).toEqual(['msg_attacker', 'msg_victim']);
  });

  it('claims nothing of another message when only the message id is swapped on a fresh delivery of other bytes', async () => {
    const store = await makeStore();
    const handled: string[] = [];
    const url = await instance(({ messageId, body }) => void handled.push(`${messageId} ${JSON.stringify(body)}`), {
      idempotency: store,
      publicUrl: 'http://app.test',
    });
    await expect(deliver(url, 'msg_v', { order: 'attacker' })).resolves.toMatchObject({ status: 200, handled: null });
    await expect(deliver(url, 'msg_v', { order: 'victim' })).resolves.toMatchObject({ status: 200, handled: null });
    expect(handled).toEqual(['msg_v {"order":"attacker"}', 'msg_v {"order":"victim"}']);
  });

  it('keeps a claim its handler still holds past the lease, by renewing it, so a copy waits instead of running twice', async () => {
    const store = await makeStore();
    const { gate, open } = settle();
    let calls = 0;
    const options = { idempotency: { store, leaseSeconds: 0.3 }, publicUrl: 'http://app.test' };
    const url = await instance(async () => {
      calls += 1;
      await gate;
    }, options);
    const running = deliver(url, 'msg_long');
    await expect.poll(() => calls).toBe(1);
    // Three leases later the holder still runs: its renewals keep the claim.
    await new Promise((resolve) => setTimeout(resolve, 900));
    await expect(deliver(url, 'msg_long')).resolves.toMatchObject({ status: 409 });
    open();
    await expect(running).resolves.toMatchObject({ status: 200 });
    expect(calls).toBe(1);
  });

  it('does not let a lapsed holder that completes after a retry took over mark the message handled for the new holder', async () => {
    const store = await makeStore();
    const key = 'msg_lapsed x';
    await expect(Promise.resolve(store.claim(key, 'lapsed', 50))).resolves.toEqual({ state: 'claimed' });
    await new Promise((resolve) => setTimeout(resolve, 80));
    await expect(Promise.resolve(store.claim(key, 'retry', 60_000))).resolves.toEqual({ state: 'claimed' });
    // The lapsed holder's completion and release change nothing: the retry still holds it.
    await store.complete(key, 'lapsed', 60_000);
    await store.release(key, 'lapsed');
    await store.renew(key, 'lapsed', 60_000);
    await expect(Promise.resolve(store.claim(key, 'third', 60_000))).resolves.toMatchObject({ state: 'busy' });
    // The retry's handler fails: the message is delivered again, not "already handled".
    await store.release(key, 'retry');
    await expect(Promise.resolve(store.claim(key, 'third', 60_000))).resolves.toEqual({ state: 'claimed' });
  });

  it('keys on the destination too: one message delivered to two URLs (a URL group) runs at each', async () => {
    const store = await makeStore();
    const seen: string[] = [];
    const receiver = createReceiver({ currentSigningKey: KEY, nextSigningKey: KEY, onError: () => {}, idempotency: store });
    const endpoint = receiver.message((message) => void seen.push(message.url ?? ''));
    for (const path of ['/warehouse', '/analytics', '/warehouse']) {
      const signed = await signRequest({ url: `http://app.test${path}`, body: 'x', key: KEY, messageId: 'msg_group' });
      const out = await endpoint.handle({ method: 'POST', url: `http://app.test${path}`, headers: signed.headers, rawBody: signed.body });
      expect(out.status).toBe(200);
    }
    expect(seen).toEqual(['http://app.test/warehouse', 'http://app.test/analytics']);
  });

  it('forgets a handled message after its TTL', async () => {
    const store = await makeStore();
    await store.claim('msg_ttl x', 'one', 1000);
    await store.complete('msg_ttl x', 'one', 200);
    await expect(Promise.resolve(store.claim('msg_ttl x', 'two', 1000))).resolves.toEqual({ state: 'done' });
    await new Promise((resolve) => setTimeout(resolve, 250));
    await expect(Promise.resolve(store.claim('msg_ttl x', 'two', 1000))).resolves.toEqual({ state: 'claimed' });
  });

  it('chaos: 1,000 messages, duplicated and concurrent, at two instances sharing the store: each side effect exactly once', async () => {
    const store = await makeStore();
    const effects = new Map<string, number>();
    // A seeded walk (mulberry32), so a failing run can be replayed.
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const failOnce = new Set<string>();
    const handler = async ({ messageId }: { messageId: string | undefined }) => {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 4)));
      // Some handlers fail before their side effect: the service retries them.
      if (!failOnce.has(messageId!) && random() < 0.1) {
        failOnce.add(messageId!);
        throw new Error('transient');
      }
      effects.set(messageId!, (effects.get(messageId!) ?? 0) + 1);
    };
    const options = { idempotency: { store, leaseSeconds: 5 }, publicUrl: 'http://app.test' };
    const instances = [await instance(handler, options), await instance(handler, options)];
    // As the service does: each copy is delivered until it is answered 2xx (a 409 or 500 retried soon).
    const deliverUntilAccepted = async (messageId: string) => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const { status } = await deliver(instances[Math.floor(random() * 2)]!, messageId);
        if (status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(random() * 20)));
      }
      throw new Error(`${messageId} was never accepted`);
    };
    const ids = Array.from({ length: 1000 }, (_, index) => `msg_chaos_${index}`);
    for (let start = 0; start < ids.length; start += 100) {
      await Promise.all(
        ids.slice(start, start + 100).flatMap((id) => {
          // 1 to 3 copies at once (the service's duplicates), and sometimes one more later.
          const copies = 1 + Math.floor(random() * 3);
          const now = Array.from({ length: copies }, () => deliverUntilAccepted(id));
          return random() < 0.2 ? [...now, Promise.all(now).then(() => deliverUntilAccepted(id))] : now;
        }),
      );
    }
    expect(effects.size).toBe(1000);
    expect([...effects.values()].filter((count) => count !== 1)).toEqual([]);
  }, 120_000);
});

describe('idempotency settings', () => {
  it('refuses what is not a store, and bad times, when the endpoint is declared', () => {
    const receiver = createReceiver({ currentSigningKey: KEY, nextSigningKey: KEY, onError: () => {} });
    const handler = () => {};
    expect(() => receiver.destination(order, handler, { idempotency: {} as never })).toThrow(ValidationError);
    expect(() => receiver.destination(order, handler, { idempotency: { store: createMemoryStore(), leaseSeconds: 0 } })).toThrow(
      /idempotency.leaseSeconds: expected a number of seconds above 0/,
    );
    expect(() =>
      createReceiver({ currentSigningKey: KEY, nextSigningKey: KEY, idempotency: 'redis' as never }).destination(order, handler),
    ).toThrow(ValidationError);
    expect(() => createRedisStore({} as never)).toThrow(/expected a connected Redis client/);
    expect(() => createPostgresStore({ query: () => Promise.resolve({ rows: [] }) }, { table: 'x; drop table y' })).toThrow(
      /lower-case table name/,
    );
    expect(() => createMemoryStore({ maxKeys: 0 })).toThrow(/maxKeys/);
  });

  it('lets an endpoint opt out of the receiver default with false', async () => {
    let calls = 0;
    const receiver = createReceiver({ currentSigningKey: KEY, nextSigningKey: KEY, onError: () => {}, idempotency: createMemoryStore() });
    const endpoint = receiver.destination(order, () => void (calls += 1), { idempotency: false });
    for (let round = 0; round < 2; round++) {
      const signed = await signRequest({ url: 'http://app.test/orders', body: {}, key: KEY, messageId: 'msg_opt_out' });
      await endpoint.handle({ method: 'POST', url: 'http://app.test/orders', headers: signed.headers, rawBody: signed.body });
    }
    expect(calls).toBe(2);
  });

  it('fails closed when the store is down: the delivery is refused (the service retries), the handler never runs', async () => {
    let calls = 0;
    const down: IdempotencyStore = {
      claim: () => Promise.reject(new Error('connection refused')),
      renew: () => Promise.resolve(),
      complete: () => Promise.resolve(),
      release: () => Promise.resolve(),
    };
    const reported: Array<[string, unknown]> = [];
    const receiver = createReceiver({
      currentSigningKey: KEY,
      nextSigningKey: KEY,
      onError: (error, { stage }) => void reported.push([stage, error]),
      idempotency: down,
    });
    const endpoint = receiver.destination(order, () => void (calls += 1));
    const signed = await signRequest({ url: 'http://app.test/orders', body: {}, key: KEY, messageId: 'msg_down' });
    const out = await endpoint.handle({ method: 'POST', url: 'http://app.test/orders', headers: signed.headers, rawBody: signed.body });
    // Answered and reported as the store's failure, in its own words: the handler never ran.
    expect([out.status, out.body, out.headers['retry-after'], calls]).toEqual([503, 'Idempotency store unavailable', '5', 0]);
    expect(reported).toHaveLength(1);
    expect(reported[0]![0]).toBe('store');
    expect(reported[0]![1]).toBeInstanceOf(IdempotencyStoreError);
    expect(String((reported[0]![1] as Error).message)).toMatch(/the idempotency store failed to claim: connection refused/);
  });

  it('reports a release the store refused, and still answers the handler failure', async () => {
    const reported: Array<[string, string]> = [];
    const inner = createMemoryStore();
    const store: IdempotencyStore = { ...inner, release: () => Promise.reject(new Error('release lost')) };
    const receiver = createReceiver({
      currentSigningKey: KEY,
      nextSigningKey: KEY,
      onError: (error, { stage }) => void reported.push([stage, (error as Error).message]),
      idempotency: store,
    });
    const endpoint = receiver.destination(order, () => {
      throw new Error('handler broke');
    });
    const signed = await signRequest({ url: 'http://app.test/orders', body: {}, key: KEY, messageId: 'msg_release' });
    const out = await endpoint.handle({ method: 'POST', url: 'http://app.test/orders', headers: signed.headers, rawBody: signed.body });
    expect(out.status).toBe(500);
    expect(reported).toEqual([
      ['store', expect.stringMatching(/failed to release: release lost/)],
      ['handler', 'handler broke'],
    ]);
  });

  it('reads a store that answers with any thenable, and fails closed on a claim state it does not know', async () => {
    const inner = createMemoryStore();
    // biome-ignore lint/suspicious/noThenProperty: a store answering with a thenable that is not a Promise is the point.
    const thenable = <T>(value: T): PromiseLike<T> => ({ then: (resolve) => Promise.resolve(resolve ? resolve(value) : value) as never });
    const lazy: IdempotencyStore = {
      claim: (...args) => thenable(inner.claim(...args) as never),
      renew: (...args) => thenable(void inner.renew(...args)),
      complete: (...args) => thenable(void inner.complete(...args)),
      release: (...args) => thenable(void inner.release(...args)),
    };
    let calls = 0;
    const run = async (store: IdempotencyStore, messageId: string) => {
      const receiver = createReceiver({ currentSigningKey: KEY, nextSigningKey: KEY, onError: () => {}, idempotency: store });
      const endpoint = receiver.destination(order, () => void (calls += 1));
      const signed = await signRequest({ url: 'http://app.test/orders', body: {}, key: KEY, messageId });
      return endpoint.handle({ method: 'POST', url: 'http://app.test/orders', headers: signed.headers, rawBody: signed.body });
    };
    await expect(run(lazy, 'msg_thenable')).resolves.toMatchObject({ status: 200 });
    await expect(run(lazy, 'msg_thenable')).resolves.toMatchObject({ status: 200, headers: { 'mailroom-already-handled': 'true' } });
    expect(calls).toBe(1);
    const odd: IdempotencyStore = { ...inner, claim: () => ({ state: 'maybe' }) as never };
    await expect(run(odd, 'msg_odd')).resolves.toMatchObject({ status: 503 });
    expect(calls).toBe(1);
  });

  it('takes keys of any length in Postgres (a long presigned URL)', async () => {
    const pool = new pg.Pool({ host: postgres.socket, user: 'postgres', database: 'postgres' });
    closers.push(() => pool.end());
    const store = createPostgresStore(pool, { table: 'handled_long' });
    const long = `msg_long https://bucket.test/object?${'X-Amz-Signature=abc&'.repeat(400)} hash`;
    await expect(store.claim(long, 'one', 60_000)).resolves.toEqual({ state: 'claimed' });
    await store.complete(long, 'one', 60_000);
    await expect(store.claim(long, 'two', 60_000)).resolves.toEqual({ state: 'done' });
    await expect(store.claim(`${long}!`, 'two', 60_000)).resolves.toEqual({ state: 'claimed' });
  });

  it('deletes the Postgres store’s expired rows on request', async () => {
    const pool = new pg.Pool({ host: postgres.socket, user: 'postgres', database: 'postgres' });
    closers.push(() => pool.end());
    const store = createPostgresStore(pool, { table: 'handled_expiry' });
    await store.claim('a', 'one', 1);
    await store.claim('b', 'one', 60_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(deleteExpiredRows(pool, { table: 'handled_expiry' })).resolves.toBe(1);
  });
});
