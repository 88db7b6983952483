import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ApiError,
  AuthError,
  NetworkError,
  NotFoundError,
  PlanLimitError,
  RateLimitError,
  createManagementClient,
  createMessagingClient,
  defineDestination,
  type MessagingClient,
} from '../../src';
import { rejectionOf } from '../http/transport-fixture';
import { messagingUsers } from '../schemas/fixtures';
import { startStubServer, type StubReply, type StubServer } from '../support/stub-server';
import { fcParams, timeoutFor } from './fc-settings';

// The messaging client against a stub that drops connections, rate-limits (both header families)
// and fails with 5xx, counting every request that reached it. The rule under test: a request whose
// outcome is unknown is sent again only when that is safe (GETs; an enqueue carrying a
// deduplication id, which the service recognises); every failure ends in a typed error once the
// retry budget is spent. Backoff is recorded, never slept: the clock and the sleep are injected.

const NOW = Date.UTC(2030, 0, 15, 12);
const NOW_SECONDS = NOW / 1000;
const MESSAGE = { messageId: 'msg_resilience_1' };
const RETRIES = 3;
const MAX_DELAY_MS = 10_000;

/** One answer of the stub, named for the model below. */
type Outcome =
  | 'ok'
  | 'reset'
  | '500'
  | '502'
  | '503'
  | '504'
  | '429-daily'
  | '429-burst'
  | '429-retry-after'
  | '429-far'
  | '400'
  | '401'
  | '404'
  | '412';

const RETRYABLE: readonly Outcome[] = ['reset', '500', '502', '503', '504', '429-daily', '429-burst', '429-retry-after'];

function replyFor(outcome: Outcome, ok: unknown): StubReply {
  switch (outcome) {
    case 'ok':
      return { json: ok };
    case 'reset':
      return { reset: true };
    case '429-daily':
      // The daily family with its reset two seconds away (Unix seconds, as the service sends it).
      return {
        status: 429,
        headers: { 'RateLimit-Limit': '1000', 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(NOW_SECONDS + 2) },
        json: { error: 'daily limit' },
      };
    case '429-burst':
      return {
        status: 429,
        headers: { 'Burst-RateLimit-Limit': '100', 'Burst-RateLimit-Remaining': '0', 'Burst-RateLimit-Reset': String(NOW_SECONDS + 1) },
        json: { error: 'burst limit' },
      };
    case '429-retry-after':
      return { status: 429, headers: { 'Retry-After': '3' }, json: { error: 'slow down' } };
    case '429-far':
      // A daily reset an hour away: waiting is pointless, the error must come at once.
      return {
        status: 429,
        headers: { 'RateLimit-Limit': '1000', 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(NOW_SECONDS + 3600) },
        json: { error: 'daily limit' },
      };
    default:
      return { status: Number(outcome), json: { error: `stub says ${outcome}` } };
  }
}

/** What the client must do with a sequence of answers: how many requests, and how it ends. */
function model(outcomes: readonly Outcome[], retries: number): { requests: number; result: Outcome } {
  for (let attempt = 0; attempt < outcomes.length; attempt++) {
    const outcome = outcomes[attempt]!;
    if (outcome === 'ok') return { requests: attempt + 1, result: 'ok' };
    if (!RETRYABLE.includes(outcome) || attempt >= retries) return { requests: attempt + 1, result: outcome };
  }
  throw new Error('the sequence ran out of answers');
}

function expectTypedError(error: unknown, outcome: Outcome): void {
  switch (outcome) {
    case 'reset':
      expect(error).toBeInstanceOf(NetworkError);
      expect(error).toMatchObject({ timedOut: false });
      return;
    case '429-daily':
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, kind: 'daily', remaining: 0, reset: new Date(NOW + 2000) });
      return;
    case '429-far':
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, kind: 'daily', reset: new Date(NOW + 3_600_000) });
      return;
    case '429-burst':
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, kind: 'burst', remaining: 0, reset: new Date(NOW + 1000) });
      return;
    case '429-retry-after':
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, kind: 'unknown' });
      return;
    case '401':
      expect(error).toBeInstanceOf(AuthError);
      return;
    case '404':
      expect(error).toBeInstanceOf(NotFoundError);
      return;
    case '412':
      expect(error).toBeInstanceOf(PlanLimitError);
      return;
    default:
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: Number(outcome), serviceMessage: `stub says ${outcome}` });
  }
}

let stub: StubServer;
let delays: number[];
let client: MessagingClient;

beforeAll(async () => {
  stub = await startStubServer();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.clear();
  ({ client, delays } = clientFor(stub));
});

function clientFor(server: StubServer, retries = RETRIES) {
  const recorded: number[] = [];
  return {
    delays: recorded,
    client: createMessagingClient({
      baseUrl: server.url,
      token: 'resilience-token',
      env: {},
      retry: { retries, baseDelayMs: 100, maxDelayMs: MAX_DELAY_MS },
      sleep: async (ms) => void recorded.push(ms),
      random: () => 0.5,
      now: () => NOW,
    }),
  };
}

const orderPlaced = defineDestination({ name: 'order-placed', path: '/api/order-placed', schema: z.object({ orderId: z.string() }) });

/** Every way the client can send an enqueue, without and with a deduplication id. */
const ENQUEUES = {
  enqueue: (c: MessagingClient, dedup?: string) =>
    c.enqueue({ queue: 'q', destination: 'https://app.test/hook', body: 'payload-bytes', ...(dedup ? { deduplicationId: dedup } : {}) }),
  'enqueue to a URL group': (c: MessagingClient, dedup?: string) =>
    c.enqueue({ queue: 'q', destination: 'my-group', body: 'payload-bytes', ...(dedup ? { deduplicationId: dedup } : {}) }),
  enqueueJSON: (c: MessagingClient, dedup?: string) =>
    c.enqueueJSON({ queue: 'q', destination: 'https://app.test/hook', body: { n: 1 }, ...(dedup ? { deduplicationId: dedup } : {}) }),
  send: (c: MessagingClient, dedup?: string) =>
    c.send(orderPlaced, { orderId: 'o1' }, { url: 'https://app.test/api/order-placed', ...(dedup ? { deduplicationId: dedup } : {}) }),
} as const;

const okFor = (name: keyof typeof ENQUEUES) => (name === 'enqueue to a URL group' ? [{ ...MESSAGE, url: 'https://a.test' }] : MESSAGE);

describe('an enqueue without a deduplication id is never sent twice', () => {
  const failures: Outcome[] = ['reset', '500', '502', '503', '504', '429-daily', '429-burst', '429-retry-after', '429-far'];
  for (const name of Object.keys(ENQUEUES) as Array<keyof typeof ENQUEUES>) {
    it.each(failures)(`${name}: %s -> one request, a typed error, no backoff`, async (outcome) => {
      stub.reply(replyFor(outcome, okFor(name)), replyFor('ok', okFor(name)));
      const error = await rejectionOf(ENQUEUES[name](client));
      expectTypedError(error, outcome);
      expect(stub.requests).toHaveLength(1);
      expect(stub.pending).toBe(1);
      expect(delays).toEqual([]);
    });
  }

  it('content-based deduplication alone does not make it resendable (the body may have been accepted)', async () => {
    stub.reply(replyFor('reset', MESSAGE), replyFor('ok', MESSAGE));
    const error = await rejectionOf(
      client.enqueue({ queue: 'q', destination: 'https://app.test/hook', body: 'x', contentBasedDeduplication: true }),
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect(stub.requests).toHaveLength(1);
  });

  it('a timeout (the service may have accepted it) is not resent either', async () => {
    const { client: impatient } = clientForTimeout(stub, 50);
    stub.reply({ hang: true }, replyFor('ok', MESSAGE));
    const error = await rejectionOf(impatient.enqueue({ queue: 'q', destination: 'https://app.test/hook', body: 'x' }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timedOut: true });
    expect(stub.requests).toHaveLength(1);
  });

  it('other writes (URL group endpoints, DLQ re-trigger) are never resent', async () => {
    for (const write of [
      () => client.urlGroups.addEndpoints('group', [{ url: 'https://a.test' }]),
      () => client.urlGroups.removeEndpoints('group', [{ url: 'https://a.test' }]),
      () => client.workflowDlq.retriggerFailureCallback('1893499200000-0'),
    ]) {
      stub.clear();
      stub.reply(replyFor('503', {}), replyFor('ok', {}));
      expectTypedError(await rejectionOf(write()), '503');
      expect(stub.requests).toHaveLength(1);
    }
  });
});

describe('an enqueue with a deduplication id is retried, identically', () => {
  for (const name of Object.keys(ENQUEUES) as Array<keyof typeof ENQUEUES>) {
    it(`${name}: resends the same bytes and id through reset, 503 and 429, then succeeds`, async () => {
      stub.reply(replyFor('reset', {}), replyFor('503', {}), replyFor('429-burst', {}), replyFor('ok', okFor(name)));
      await expect(ENQUEUES[name](client, 'order-1234')).resolves.toBeDefined();
      expect(stub.requests).toHaveLength(4);
      const first = stub.requests[0]!;
      for (const request of stub.requests) {
        expect(request.headers['service-deduplication-id']).toBe('order-1234');
        expect(request.url).toBe(first.url);
        expect(Buffer.from(request.body).equals(Buffer.from(first.body))).toBe(true);
      }
      // Backoff for the reset and the 503 (full jitter at 0.5 of 100, 200 ms), the burst reset for the 429.
      expect(delays).toEqual([50, 100, 1000]);
    });
  }

  it('gives up after 1 + retries attempts with the last typed error', async () => {
    stub.handle(() => replyFor('503', MESSAGE));
    const error = await rejectionOf(ENQUEUES.enqueue(client, 'order-1234'));
    expectTypedError(error, '503');
    expect(stub.requests).toHaveLength(1 + RETRIES);
    expect(delays).toHaveLength(RETRIES);
  });

  it('does not wait out a daily limit hours away: one request, RateLimitError with the reset', async () => {
    stub.handle(() => replyFor('429-far', MESSAGE));
    const error = await rejectionOf(ENQUEUES.enqueue(client, 'order-1234'));
    expectTypedError(error, '429-far');
    expect(stub.requests).toHaveLength(1);
  });
});

describe('GETs are retried within the budget', () => {
  it('lists URL groups through drops, 5xx and both 429 families, waiting what the server asked', async () => {
    stub.reply(replyFor('reset', []), replyFor('429-daily', []), replyFor('429-burst', []), replyFor('ok', []));
    await expect(client.urlGroups.list()).resolves.toEqual([]);
    expect(stub.requests).toHaveLength(4);
    expect(delays).toEqual([50, 2000, 1000]);
  });

  it.each(['reset', '503', '429-burst'] as const)('gives up after 1 + retries attempts of %s with a typed error', async (outcome) => {
    stub.handle(() => replyFor(outcome, []));
    const error = await rejectionOf(client.workflowDlq.list());
    expectTypedError(error, outcome);
    expect(stub.requests).toHaveLength(1 + RETRIES);
    expect(stub.requests.every((request) => request.method === 'GET')).toBe(true);
  });

  it('the management client retries its GETs too (Basic auth)', async () => {
    const management = createManagementClient({
      baseUrl: `${stub.url}/v2`,
      user: 'ops@example.com',
      password: 'mgmt-key',
      env: {},
      retry: { retries: 2 },
      sleep: async () => {},
      now: () => NOW,
    });
    stub.reply(replyFor('503', {}), replyFor('reset', {}), replyFor('ok', messagingUsers));
    await expect(management.users()).resolves.toHaveLength(messagingUsers.length);
    expect(stub.requests).toHaveLength(3);
  });
});

describe('property: any sequence of failures', () => {
  const outcome = fc.oneof(
    { weight: 3, arbitrary: fc.constant<Outcome>('ok') },
    { weight: 8, arbitrary: fc.constantFrom<Outcome>(...RETRYABLE) },
    fc.constantFrom<Outcome>('429-far', '400', '401', '404', '412'),
  );
  // Always ends in 'ok', so the model never runs out of answers.
  const sequence = fc.array(outcome, { maxLength: 6 }).map((outcomes) => [...outcomes, 'ok' as Outcome]);
  const operation = fc.constantFrom('enqueue', 'enqueue+dedup', 'enqueueJSON+dedup', 'send', 'list', 'dlq');

  it(
    'sends exactly what the model allows: never an unsafe resend, never more than 1 + retries, a typed error at the end',
    async () => {
      await fc.assert(
        fc.asyncProperty(sequence, fc.integer({ min: 0, max: 4 }), operation, async (outcomes, retries, op) => {
          stub.clear();
          const { client: subject, delays: waits } = clientFor(stub, retries);
          const retrySafe = op.endsWith('+dedup') || op === 'list' || op === 'dlq';
          const ok = op === 'list' ? [] : op === 'dlq' ? { messages: [] } : MESSAGE;
          stub.reply(...outcomes.map((each) => replyFor(each, ok)));
          const run = (): Promise<unknown> => {
            switch (op) {
              case 'enqueue':
                return ENQUEUES.enqueue(subject);
              case 'enqueue+dedup':
                return ENQUEUES.enqueue(subject, 'dedup-1');
              case 'enqueueJSON+dedup':
                return ENQUEUES.enqueueJSON(subject, 'dedup-1');
              case 'send':
                return ENQUEUES.send(subject);
              case 'list':
                return subject.urlGroups.list();
              default:
                return subject.workflowDlq.list();
            }
          };
          const expected = model(outcomes, retrySafe ? retries : 0);
          let error: unknown;
          try {
            await run();
          } catch (caught) {
            error = caught;
          }
          expect(stub.requests).toHaveLength(expected.requests);
          expect(waits).toHaveLength(expected.requests - 1);
          if (expected.result === 'ok') expect(error).toBeUndefined();
          else expectTypedError(error, expected.result);
        }),
        fcParams(300),
      );
    },
    timeoutFor(300, 20),
  );
});

function clientForTimeout(server: StubServer, timeoutMs: number) {
  return {
    client: createMessagingClient({
      baseUrl: server.url,
      token: 'resilience-token',
      env: {},
      timeoutMs,
      sleep: async () => {},
      now: () => NOW,
    }),
  };
}
