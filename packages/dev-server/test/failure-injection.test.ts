import { afterEach, describe, expect, it } from 'vitest';
import { answerBytes, startChaosDestination, type Arrival, type ChaosDestination, type Fault } from './helpers/chaos-destination';
import { enqueueAll, listDlq, range, settleTimeoutMs, soakMessages, soakSeed, sumSeries } from './helpers/soak';
import { startTestServer, type TestServer } from './helpers/test-server';
import { waitUntil } from './helpers/wait';
import type { DevServerEvent } from '../src';

/*
 * A destination fails 30% of attempts (500s, connection resets, answers that never come before the
 * 1 s timeout) and answers another 10% slowly, under a load of MAILROOM_SOAK_MESSAGES messages (2,000
 * by default; set it higher for a release check). Every accepted message must end delivered after
 * exactly as many attempts as it took, or in the DLQ after exactly 1 + retries, and the server's own
 * accounting (events, DLQ listing, statistics down to the bandwidth of each attempt) must agree with
 * what the destination saw, attempt by attempt.
 */

const SEED = 0x5eed_2026;
const QUEUES = 64;

let server: TestServer | undefined;
let destination: ChaosDestination | undefined;

afterEach(async () => {
  await server?.close();
  await destination?.close();
  server = undefined;
  destination = undefined;
});

/** How the server says one attempt ended. */
interface ServerAttempt {
  outcome: 'delivered' | 'retry' | 'failed';
  status?: number;
  error?: string;
}

describe('the dev server under a failing destination', () => {
  it(
    'ends every accepted message delivered or in the DLQ, with every attempt accounted for',
    async () => {
      const total = soakMessages();
      const t = (server = await startTestServer({ plan: 'paid' }));
      const chaos = (destination = await startChaosDestination({
        seed: soakSeed(SEED),
        headerPrefix: 'Service',
        keys: () => ({ currentSigningKey: t.server.currentSigningKey, nextSigningKey: t.server.nextSigningKey }),
      }));
      const retriesOf = (seq: number) => seq % 4;
      const serverAttempts = new Map<string, ServerAttempt>();
      const outcomes = new Map<string, 'delivered' | 'failed'>();
      let duplicateAttempts = 0;
      t.server.subscribe((event) => {
        const attempt = attemptOf(event);
        if (!attempt) return;
        const key = `${attempt.messageId}:${attempt.retried}`;
        if (serverAttempts.has(key)) duplicateAttempts += 1;
        serverAttempts.set(key, attempt.result);
        if (attempt.result.outcome !== 'retry') outcomes.set(attempt.messageId, attempt.result.outcome);
      });

      const accepted = await enqueueAll(t.messaging, {
        seqs: range(0, total),
        url: `${chaos.url}/chaos`,
        queues: QUEUES,
        retries: retriesOf,
      });
      expect(accepted.size).toBe(total);
      const ids = [...accepted.values()];
      await waitUntil(
        () => outcomes.size >= total,
        () => `${total} final outcomes, saw ${outcomes.size}`,
        settleTimeoutMs(total),
      );
      const dlq = await listDlq(t.server.url, t.server.token);
      const [user] = await t.management.users();
      const stats = await t.management.stats(user!.id);
      await t.close();
      server = undefined;

      expect(chaos.problems).toEqual([]);
      expect(duplicateAttempts).toBe(0);
      const attemptsOf = (id: string): ServerAttempt[] => {
        const list: ServerAttempt[] = [];
        for (let retried = 0; serverAttempts.has(`${id}:${retried}`); retried += 1) list.push(serverAttempts.get(`${id}:${retried}`)!);
        return list;
      };
      const mistakes: string[] = [];
      let attemptsCounted = 0;
      for (const [seq, id] of accepted) {
        const attempts = attemptsOf(id);
        attemptsCounted += attempts.length;
        mistakes.push(...accountFor(id, attempts, chaos.byMessage.get(id) ?? [], 1 + retriesOf(seq), outcomes.get(id), dlq.has(id)));
      }
      expect(mistakes.slice(0, 10)).toEqual([]);
      // Every attempt the server reported is numbered without a gap, and every one the destination saw
      // is among them (accountFor); only timeouts may be missing at the destination.
      expect(attemptsCounted).toBe(serverAttempts.size);

      const delivered = ids.filter((id) => outcomes.get(id) === 'delivered');
      const failed = ids.filter((id) => outcomes.get(id) === 'failed');
      expect(new Set(dlq.keys())).toEqual(new Set(failed));
      // Both outcomes and every kind of fault really happened, or this test proves less than it says.
      // A tenth delivered, not a half: on a loaded machine (two suites side by side) ordinary answers
      // also miss the 1 s timeout, and a run once delivered 975 of 2,000, every attempt still accounted for.
      expect(delivered.length).toBeGreaterThan(total / 10);
      expect(failed.length).toBeGreaterThan(total / 50);
      for (const fault of ['error', 'reset', 'timeout', 'slow'] as const) {
        expect(chaos.arrivals.filter((arrival) => arrival.fault === fault).length, fault).toBeGreaterThan(total / 100);
      }
      // The DLQ keeps the last answer: a status when there was one, nothing after a reset or a timeout.
      for (const [id, entry] of dlq) {
        expect(entry.responseStatus, id).toBe(attemptsOf(id).at(-1)?.status);
      }

      // Statistics: one request per message, one delivered or failed count per message, and bandwidth
      // that adds the body of every attempt the server made and every answer it read.
      expect(sumSeries(stats.daily_used)).toBe(total);
      expect(sumSeries(stats.daily_messaging_messages.find((series) => series.id === 'delivered')!.data_points)).toBe(delivered.length);
      expect(sumSeries(stats.daily_messaging_messages.find((series) => series.id === 'failed')!.data_points)).toBe(failed.length);
      expect(stats.dlq_message_count).toBe(failed.length);
      let bandwidth = 0;
      for (const [seq, id] of accepted) {
        attemptsOf(id).forEach((attempt, retried) => {
          const arrival = chaos.byMessage.get(id)?.find((candidate) => candidate.retried === retried);
          bandwidth += String(seq).length + (attempt.status !== undefined && arrival ? answerBytes(arrival.fault) : 0);
        });
      }
      expect(sumSeries(stats.daily_bandwidth_used)).toBe(bandwidth);
    },
    settleTimeoutMs(soakMessages()) + 60_000,
  );
});

/** The attempt an event reports, if it reports one. */
function attemptOf(event: DevServerEvent): { messageId: string; retried: number; result: ServerAttempt } | undefined {
  if (event.type === 'delivered')
    return { messageId: event.messageId, retried: event.retried, result: { outcome: 'delivered', status: event.status } };
  if (event.type !== 'retry' && event.type !== 'failed') return undefined;
  const result: ServerAttempt = {
    outcome: event.type,
    ...(event.status !== undefined ? { status: event.status } : {}),
    ...(event.error ? { error: event.error } : {}),
  };
  return { messageId: event.messageId, retried: event.retried, result };
}

/**
 * Whether the server's verdict on an attempt fits what the destination did. A timeout fits any fault:
 * on a loaded machine a connection can wait out a SYN retransmission (1 s on Linux) before the
 * request even arrives (or never does, see accountFor), and the service, too, counts an answer that
 * comes too late as a failure.
 */
function fits(fault: Fault, server: ServerAttempt): boolean {
  if (server.error?.startsWith('timeout')) return true;
  if (fault === 'ok' || fault === 'slow') return server.outcome === 'delivered' && server.status === 200;
  if (fault === 'error') return server.outcome !== 'delivered' && server.status === 500;
  // A reset is a network error: no status.
  if (fault === 'reset') return server.outcome !== 'delivered' && server.status === undefined && server.error !== undefined;
  return false;
}

/**
 * What is wrong with one message's attempts (the server's verdicts, index = `retried`, and what the
 * destination saw), given its outcome: nothing, for a correct server.
 */
function accountFor(
  id: string,
  attempts: readonly ServerAttempt[],
  arrivals: readonly Arrival[],
  maxAttempts: number,
  outcome: 'delivered' | 'failed' | undefined,
  inDlq: boolean,
): string[] {
  if (attempts.length === 0) return [`${id}: the server reported no attempt`];
  const seen = new Map<number, Arrival>();
  for (const arrival of arrivals) {
    if (seen.has(arrival.retried)) return [`${id}: attempt ${arrival.retried} reached the destination twice`];
    if (arrival.retried >= attempts.length)
      return [`${id}: attempt ${arrival.retried} reached the destination but the server reported only ${attempts.length}`];
    seen.set(arrival.retried, arrival);
  }
  for (const [retried, server] of attempts.entries()) {
    const arrival = seen.get(retried);
    // A connection still waiting out a SYN retransmission when the timeout fires never arrives.
    if (!arrival && !server.error?.startsWith('timeout'))
      return [`${id}: attempt ${retried} never arrived, yet the server reported ${JSON.stringify(server)}`];
    if (arrival && !fits(arrival.fault, server))
      return [`${id}: attempt ${retried} was "${arrival.fault}" but the server reported ${JSON.stringify(server)}`];
  }
  const verdicts = attempts.map((attempt) => attempt.outcome);
  const last = verdicts.at(-1);
  if (verdicts.slice(0, -1).some((verdict) => verdict !== 'retry'))
    return [`${id}: attempts ${verdicts.join()}, expected retries then one outcome`];
  if (last === 'delivered') {
    if (outcome !== 'delivered' || inDlq) return [`${id}: delivered at attempt ${verdicts.length} but outcome ${outcome}, dlq=${inDlq}`];
    if (verdicts.length > maxAttempts) return [`${id}: ${verdicts.length} attempts, more than ${maxAttempts}`];
    return [];
  }
  if (last !== 'failed' || outcome !== 'failed' || !inDlq) return [`${id}: last attempt ${last}, outcome ${outcome}, dlq=${inDlq}`];
  if (verdicts.length !== maxAttempts) return [`${id}: in the DLQ after ${verdicts.length} attempts, expected exactly ${maxAttempts}`];
  return [];
}
