import { createReceiver } from '@mailroom/core';
import { createMemoryStore, createPostgresStore, createRedisStore, type IdempotencyStore } from '@mailroom/core/idempotency';
import { type RealServer, startPostgres, startRedis } from '@mailroom/test-machine';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestService, type TestService } from '../src';

// Exactly once, model-based: fast-check draws what the service may legitimately do to each of a few
// messages (deliver it twice, lose an answer) and what may befall the app (its handler failing, the
// app dying mid-handler with the message claimed, the store down, a token of the message replayed by
// an attacker under another message's id), runs it on the test service's virtual clock into an app
// with an idempotency store, and checks the model: each side effect exactly once, a message in the
// DLQ only when its handler failed at every attempt, and every replayed token refused. Once per
// store: memory (its leases on the virtual clock), and the real Redis and Postgres the suite starts
// (their leases on real time: the test gives a dead claim that time to lapse).

const RETRIES = 3;
/** Messages are sent this far apart: a message's first attempt comes before the next one's. */
const SPACING_SECONDS = 20;
const RUNS = Math.min(Number(process.env.FC_NUM_RUNS ?? 12), 200);

interface Plan {
  /** Its handler throws at every attempt: the message must end in the DLQ, its side effect never made. */
  doomed: boolean;
  /** Times its handler throws before its side effect is made. */
  failures: number;
  duplicate: boolean;
  lostAnswer: boolean;
  /** The app dies in the run after those failures, holding the claim: only the lease ends it. */
  crash: boolean;
  /** The store is down for the message's first claim. */
  outage: boolean;
  /** Its first token is replayed under the next message's id, before that one is delivered. */
  replay: boolean;
}

/** Attempts a plan's disruptions may cost before its side effect is made (a crash: its run and one 409). */
const cost = (plan: Plan) => plan.failures + (plan.outage ? 1 : 0) + (plan.crash ? 2 : 0) + (plan.lostAnswer ? 1 : 0);

const recoverable: fc.Arbitrary<Plan> = fc
  .record({
    failures: fc.integer({ min: 0, max: RETRIES }),
    duplicate: fc.boolean(),
    lostAnswer: fc.boolean(),
    crash: fc.boolean(),
    outage: fc.boolean(),
    replay: fc.boolean(),
  })
  .map((plan) => ({ ...plan, doomed: false }))
  .filter((plan) => cost(plan) <= RETRIES);

const doomed: fc.Arbitrary<Plan> = fc
  .record({ duplicate: fc.boolean(), lostAnswer: fc.boolean(), replay: fc.boolean() })
  .map((plan) => ({ ...plan, doomed: true, failures: 0, crash: false, outage: false }));

const plansArbitrary = fc
  .array(fc.oneof({ weight: 4, arbitrary: recoverable }, { weight: 1, arbitrary: doomed }), { minLength: 1, maxLength: 6 })
  // A replay borrows the id of the message after it.
  .map((plans) => plans.map((plan, index) => ({ ...plan, replay: plan.replay && index < plans.length - 1 })));

/** What one run saw. */
interface Seen {
  effects: Map<number, number>;
  runs: Map<number, number>;
  /** Messages whose app died holding the claim: that release never reaches the store. */
  died: Set<string>;
  /** Messages whose next claim finds the store down. */
  down: Set<string>;
  crashed: boolean;
}

/** The store as a dying app and a flaky network leave it: a dead app's release is lost, an outage refuses a claim. */
function unreliable(store: IdempotencyStore, seen: Seen): IdempotencyStore {
  const messageOf = (key: string) => key.slice(0, key.indexOf(' '));
  return {
    claim: (key, owner, leaseMs) =>
      seen.down.delete(messageOf(key)) ? Promise.reject(new Error('the store is down')) : store.claim(key, owner, leaseMs),
    renew: (key, owner, leaseMs) => store.renew(key, owner, leaseMs),
    complete: (key, owner, ttlMs) => store.complete(key, owner, ttlMs),
    release: (key, owner) => (seen.died.delete(messageOf(key)) ? undefined : store.release(key, owner)),
  };
}

/** One drawn schedule, run and checked against the model. */
async function check(plans: Plan[], store: (now: () => number) => Promise<IdempotencyStore>, realLeaseSeconds: number | undefined) {
  const seen: Seen = { effects: new Map(), runs: new Map(), died: new Set(), down: new Set(), crashed: false };
  let service: TestService | undefined;
  const idempotency = { store: unreliable(await store(() => service?.now() ?? Date.now()), seen), leaseSeconds: realLeaseSeconds ?? 15 };
  let app!: (request: Request) => Promise<Response>;
  service = await createTestService({
    plan: 'free',
    createApp: (env) => {
      const endpoint = createReceiver({ env, onError: () => {}, idempotency }).message((message) => {
        const index = (message.body as { index: number }).index;
        const plan = plans[index]!;
        const runs = (seen.runs.get(index) ?? 0) + 1;
        seen.runs.set(index, runs);
        if (plan.doomed || runs <= plan.failures) throw new Error('the handler failed');
        if (plan.crash && runs === plan.failures + 1) {
          seen.crashed = true;
          seen.died.add(message.messageId!);
          throw new Error('the app died mid-handler');
        }
        seen.effects.set(index, (seen.effects.get(index) ?? 0) + 1);
      });
      app = (request) => endpoint.fetch(request);
      return app;
    },
  });
  try {
    const ids: string[] = [];
    for (const [index, plan] of plans.entries()) {
      const to = `http://app.test/m/${index}` as const;
      if (plan.duplicate) service.faults.duplicate({ to, times: 1 });
      if (plan.lostAnswer) service.faults.loseAnswer({ to, times: 1 });
      const { messageId } = await service.client.publish({
        destination: to,
        body: JSON.stringify({ index }),
        contentType: 'application/json',
        retries: RETRIES,
        delay: index * SPACING_SECONDS,
      });
      ids.push(messageId);
      if (plan.outage) seen.down.add(messageId);
    }
    const replayed: number[] = [];
    // Second by second: a dead claim on a store whose leases run on real time is given that time.
    for (let second = 0; second < plans.length * SPACING_SECONDS + 120; second++) {
      seen.crashed = false;
      await service.advance(1);
      if (seen.crashed && realLeaseSeconds !== undefined)
        await new Promise((resolve) => setTimeout(resolve, realLeaseSeconds * 1000 + 100));
      for (const [index, plan] of plans.entries()) {
        const first = service.attempts(`http://app.test/m/${index}`)[0];
        if (!plan.replay || !first || replayed[index] !== undefined) continue;
        expect(service.attempts(`http://app.test/m/${index + 1}`)).toEqual([]);
        const headers = new Headers(first.headers);
        headers.set('Service-Message-Id', ids[index + 1]!);
        const answer = await app(new Request(first.url, { method: 'POST', headers, body: JSON.stringify({ index }) }));
        replayed[index] = answer.status;
      }
    }
    await service.runUntilIdle();
    const inDlq = new Set((await service.dlq()).map((entry) => ids.indexOf(entry.messageId)));
    for (const [index, plan] of plans.entries()) {
      const where = `message ${index} ${JSON.stringify(plan)}`;
      const expected = plan.doomed ? [0, true] : [1, false];
      expect([where, seen.effects.get(index) ?? 0, inDlq.has(index)]).toEqual([where, ...expected]);
      if (plan.replay) expect([where, 'replay answered', replayed[index]]).toEqual([where, 'replay answered', 401]);
    }
  } finally {
    await service.close();
  }
}

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

let fresh = 0;
const STORES: Array<[string, (now: () => number) => Promise<IdempotencyStore>, number | undefined]> = [
  ['memory, its leases on the virtual clock', async (now) => createMemoryStore({ now }), undefined],
  [
    'Redis',
    async () => {
      const client = new Redis({ path: redis.socket });
      closers.push(() => client.quit());
      return createRedisStore(client, { keyPrefix: `model${++fresh}:` });
    },
    0.3,
  ],
  [
    'Postgres',
    async () => {
      const pool = new pg.Pool({ host: postgres.socket, user: 'postgres', database: 'postgres', max: 4 });
      closers.push(() => pool.end());
      return createPostgresStore(pool, { table: `model_${++fresh}` });
    },
    0.3,
  ],
];

describe.each(STORES)('exactly once over the %s store', (_name, store, realLeaseSeconds) => {
  it('makes each side effect once, sends to the DLQ only what failed at every attempt, and refuses every replay', async () => {
    await fc.assert(
      fc.asyncProperty(plansArbitrary, (plans) => check(plans, store, realLeaseSeconds)),
      { numRuns: RUNS, seed: 0x0e1ce, endOnFailure: true },
    );
  }, 600_000);
});
