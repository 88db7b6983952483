import type { EventBus } from '../events';
import type { Store } from '../state/store';
import type { FlowControlSettings, MessageRecord } from '../state/records';
import { type AttemptSpan, type AttemptSpans, attemptRecord, classifyAttempt, reportAttempt, retryWait } from './attempt';
import {
  buildDeliveryRequest,
  createRequestSender,
  type OutgoingRequest,
  type RequestResult,
  type RequestSender,
  workflowDeliveryBody,
} from './delivery-request';
import { createTokenSigner, TRACE_PARENT_HEADER, type TokenSigner } from '@mailroom/core/internal-protocol';
import { randomHex } from '../ids';
import { createDispatcher, type FlowCounters, type FlowLimits, type QueueLimits } from './dispatcher';
import type { EngineConfig } from '../settings';
import type { Faults } from './faults';
import { createTimers, nodeClock, type TimerClock } from './timers';

/** Delivers what the store holds: timers, queues, attempts, retries, callbacks, the DLQ. */
export interface Engine {
  /** Schedules every pending message of the state: on start, and so after a restart. */
  start(): void;
  /** Schedules messages just accepted (their record is already committed). */
  admit(messages: readonly MessageRecord[]): void;
  /** A waiting message was made due now (its `message.released` record is committed): attempt it. */
  release(id: string): void;
  /** Forgets cancelled messages (already removed from the store): their timers and places in line. */
  cancel(ids: readonly string[]): void;
  /** Queue or flow-control settings changed: look at everything waiting again. */
  refresh(): void;
  /** The limits a flow-control key applies now, and its live counters. */
  flow(key: string): { limits: FlowLimits; counters: FlowCounters; known: boolean };
  /** Every flow-control key a message has used since the server started (or was restarted with). */
  flowKeys(): string[];
  /** Starts a new rate period for a flow-control key now. */
  resetRate(key: string): void;
  /** Attempts running now. */
  inFlight(): number;
  /** Whether nothing runs: no attempt, and nothing already due waiting for its turn (a test's clock waits for this). */
  settled(): boolean;
  /** Runs `fire` at real time `at` under `key` (schedules), replacing any earlier timer of that key. */
  timer(key: string, at: number, fire: () => void): void;
  cancelTimer(key: string): void;
  /** Stops: no new attempt starts, running ones are aborted and not counted (they run again after a restart). */
  close(): Promise<void>;
}

/** What an engine runs on, when not real time and real sockets (an in-process test service). */
export interface EngineDeps {
  /** The clock timers run on. Default: Node's timers on `config.now`. */
  clock?: TimerClock;
  /** The time a token for `url` is signed at (a test's skewed clock). Default: `config.now`. */
  signingNow?: (url: string) => number;
  /** How an attempt reaches its destination. Default: undici over keep-alive pools. */
  sender?: RequestSender;
  /** Faults on demand to apply to attempts (duplicates, lost answers, a skewed signing clock). Default: none. */
  faults?: Pick<Faults, 'take' | 'skewMs'>;
  /** A span per attempt of a traced message, exported by the server. Default: none. */
  spans?: AttemptSpans;
  /**
   * Asked once per attempt and kind, after the faults in force: whether the service uses its freedom
   * to deliver this attempt twice, lose its answer or sign it by a clock a few seconds ahead (a test
   * exploring delivery schedules). Default: never.
   */
  freedom?: (kind: 'duplicate' | 'lose-answer' | 'skew-clock', url: string) => boolean;
}

// A clock a few seconds off, as real clocks are: within receivers' default tolerance (5 s).
const FREEDOM_SKEW_MS = 3000;

/**
 * Creates the delivery engine over a store. Every attempt's outcome is committed as one record
 * before anything follows from it (the retry timer, the callbacks, the DLQ entry), so what a restart
 * replays is exactly what happened, and at worst the attempts whose records were being written are
 * made again.
 */
export function createEngine(store: Store, config: EngineConfig, events: EventBus, deps: EngineDeps = {}): Engine {
  // A message's timer fires once it is due. One cancelled meanwhile is no longer pending, and one whose
  // time moved later is not due yet (its new timer fires then).
  const onDue = (id: string): void => {
    const dueAt = store.state.pending.dueAt(id);
    if (!closing && dueAt !== undefined && dueAt <= config.now()) dispatcher.ready(id);
  };
  const timers = createTimers(deps.clock ?? nodeClock(config.now, config.unrefTimers), onDue);
  const sender = deps.sender ?? createRequestSender();
  // One signer per key: a rotation switches every later delivery to the new current key.
  const signers = new Map<string, TokenSigner>();
  let signingUrl = '';
  const rules = deps.faults ?? { take: () => false, skewMs: () => 0 };
  const faults = {
    take: (kind: 'duplicate' | 'lose-answer', url: string) => rules.take(kind, url) || (deps.freedom?.(kind, url) ?? false),
    skewMs: (url: string) => rules.skewMs(url) || (deps.freedom?.('skew-clock', url) ? FREEDOM_SKEW_MS : 0),
  };
  // The skew of the token signed last: an attempt signed under a skew-clock fault says so to whoever records it.
  let skewedBy = 0;
  const signingNow = () => {
    skewedBy = faults.skewMs(signingUrl);
    return (deps.signingNow ? deps.signingNow(signingUrl) : config.now()) + skewedBy;
  };
  const signer = (): TokenSigner => {
    const key = store.state.signingKeys?.current ?? config.currentSigningKey;
    let sign = signers.get(key);
    if (!sign) {
      // Token ids from the pooled random source the message ids use.
      sign = createTokenSigner({ key, issuer: config.issuer, now: signingNow, jti: () => `jwt_${randomHex(16)}` });
      signers.set(key, sign);
    }
    return sign;
  };
  const running = new Set<Promise<void>>();
  // The limits each key's latest message carried; pinned limits in the store win over them.
  const carried = new Map<string, FlowControlSettings>();
  let closing = false;

  const queueLimits = (name: string): QueueLimits => {
    const queue = store.state.queues.get(name);
    return queue ? { parallelism: queue.parallelism, paused: queue.paused } : { parallelism: 1, paused: false };
  };
  const flowLimits = (key: string): FlowLimits => {
    const own = carried.get(key);
    const flow = store.state.flowKeys.get(key);
    const pinned = flow?.pinned ?? {};
    const periodSeconds = pinned.periodSeconds ?? own?.periodSeconds ?? 1;
    return {
      paused: flow?.paused ?? false,
      parallelism: pinned.parallelism ?? own?.parallelism,
      rate: pinned.rate ?? own?.rate,
      periodMs: periodSeconds * 1000 * config.timeScale,
    };
  };
  const remember = (message: MessageRecord): void => {
    if (message.flowControl) carried.set(message.flowControl.key, message.flowControl);
  };

  const dispatcher = createDispatcher({
    maxInFlight: config.maxInFlight,
    info(id) {
      const message = store.state.pending.get(id);
      return message && { seq: message.seq, queue: message.queue, flowKey: message.flowControl?.key };
    },
    start(id, at) {
      const run = attempt(id, at).finally(() => running.delete(run));
      running.add(run);
    },
    queueLimits,
    flowLimits,
    now: config.now,
    wakeAt: (key, at, wake) => {
      if (!closing) timers.at(`flow:${key}`, at, wake);
    },
  });

  const schedule = (id: string, dueAt: number): void => {
    if (!closing) timers.due(id, dueAt);
  };

  async function attempt(id: string, startedAt: number): Promise<void> {
    const message = store.state.pending.get(id);
    if (!message || closing) {
      dispatcher.finished(id, !message);
      return;
    }
    const retried = store.state.pending.retried(id);
    const sent: Sent = {};
    const result = await deliver(message, retried, sent);
    if (closing || (!result.ok && result.aborted)) {
      dispatcher.finished(id, false);
      return;
    }
    if (sent.span) {
      const { outcome } = classifyAttempt(result, retried, message.maxRetries, config.headerPrefix);
      sent.span.end({ outcome, ...answerOf(result) }, config.now());
    }
    await settleAttempt(message, retried, result, { startedAt, signature: sent.signature, spanId: sent.span?.spanId });
  }

  function deliver(message: MessageRecord, retried: number, sent: Sent): Promise<RequestResult> {
    try {
      const sign = signer();
      // A run's message carries the run's history (or nothing, for the SDK to fetch it), not its own body.
      const body = message.workflow ? workflowDeliveryBody(store.state, message, config.maxMessageSize) : undefined;
      const request = buildDeliveryRequest(
        message,
        retried,
        config,
        (url, signed) => {
          signingUrl = url;
          sent.signature = sign(url, signed);
          return sent.signature;
        },
        body,
      );
      if (deps.spans) traceAttempt(deps.spans, request, message, retried, sent, config.now());
      const outgoing: OutgoingRequest = {
        url: request.url,
        method: request.method,
        headers: request.headers,
        body: request.body,
        timeoutMs: message.timeoutSeconds * 1000,
        ...(skewedBy !== 0 ? { fault: 'skew-clock' as const } : {}),
      };
      if (faults.take('duplicate', request.url)) {
        // Delivered twice, as at-least-once delivery does now and then: two deliveries, each signed
        // (a token is used once; receivers refuse one replayed), and the second answer counts.
        const again = buildDeliveryRequest(message, retried, config, (url, signed) => (sent.signature = sign(url, signed)), body);
        return sender
          .send({ ...outgoing, fault: 'duplicate' })
          .then(() => sender.send({ ...outgoing, headers: again.headers, fault: 'duplicate' }));
      }
      if (faults.take('lose-answer', request.url)) {
        return sender
          .send({ ...outgoing, fault: 'lose-answer' })
          .then((result) =>
            result.ok || !result.aborted
              ? { ok: false, error: 'the answer was lost (a fault set on the service)', aborted: false }
              : result,
          );
      }
      return sender.send(outgoing);
    } catch (error) {
      return Promise.resolve({ ok: false, error: error instanceof Error ? error.message : String(error), aborted: false });
    }
  }

  /** Commits the attempt, frees its slot, and once the record is durable acts on what follows from it. */
  async function settleAttempt(
    message: MessageRecord,
    retried: number,
    result: RequestResult,
    request: { startedAt: number; signature: string | undefined; spanId: string | undefined },
  ): Promise<void> {
    const at = config.now();
    const classified = classifyAttempt(result, retried, message.maxRetries, config.headerPrefix);
    const wait =
      classified.outcome === 'retry' ? retryWait(message.retryDelay, retried, result.ok ? result.headers : undefined, at) : undefined;
    const record = attemptRecord({ state: store.state, message, retried, result, classified, wait, at, ...request }, config);
    const committed = store.commit(record);
    // The queue's next message need not wait for this record's sync: the journal is append-only, so
    // a crash can only lose its newest attempts, and a restart makes those again, in order.
    dispatcher.finished(message.id, classified.outcome !== 'retry');
    try {
      await committed;
    } catch {
      // Refused by the store (a full disk): the state goes back to what the journal holds and this
      // attempt is made again once writing resumes, so nothing follows from it now.
      return;
    }
    reportAttempt(events, { message, record, classified, wait, timeScale: config.timeScale, state: store.state });
    if (record.dueAt !== undefined) schedule(message.id, record.dueAt);
    for (const spawned of record.spawned) schedule(spawned.id, spawned.dueAt);
  }

  return {
    start() {
      // In acceptance order, which queues deliver in, in one walk: no timer fires before this task
      // ends, so every started queue message holds its queue before any message is dispatched.
      // A message left in the journal (`held` undefined) is a plain one, with no queue and no flow control: it is not read here.
      store.state.pending.forEachDueInAcceptanceOrder((id, dueAt, started, held) => {
        if (held) {
          if (started && held.queue !== undefined) dispatcher.hold(held.queue, id);
          remember(held);
        }
        schedule(id, dueAt);
      });
    },
    admit(messages) {
      for (const message of messages) {
        remember(message);
        schedule(message.id, message.dueAt);
      }
    },
    release(id) {
      // Its earlier timer stays armed and finds it delivered, or not yet due again, when it fires.
      schedule(id, config.now());
    },
    cancel(ids) {
      // Their timers stay armed and find them gone when they fire.
      for (const id of ids) dispatcher.forget(id);
    },
    refresh: () => dispatcher.refresh(),
    flow: (key) => ({
      limits: flowLimits(key),
      counters: dispatcher.flowCounters(key),
      known: carried.has(key) || store.state.flowKeys.has(key),
    }),
    flowKeys: () => [...carried.keys()],
    resetRate: (key) => dispatcher.resetRate(key),
    inFlight: () => dispatcher.inFlight(),
    settled: () => running.size === 0 && !timers.firing(),
    timer: (key, at, fire) => {
      if (!closing) timers.at(key, at, fire);
    },
    cancelTimer: (key) => timers.cancel(key),
    async close() {
      closing = true;
      dispatcher.stop();
      timers.clear();
      sender.abortAll();
      await Promise.allSettled([...running]);
      sender.close();
    },
  };
}

/** What an attempt was sent with, kept for its record. */
interface Sent {
  signature?: string;
  span?: AttemptSpan;
}

/** Gives a traced message's attempt a span of its own, which the attempt's `traceparent` names instead of the sender's. */
function traceAttempt(
  spans: AttemptSpans,
  request: { url: string; method: string; headers: Record<string, string> },
  message: MessageRecord,
  retried: number,
  sent: Sent,
  at: number,
): void {
  const name = Object.keys(request.headers).find((header) => header.toLowerCase() === TRACE_PARENT_HEADER);
  if (name === undefined) return;
  const span = spans.start({
    traceParent: request.headers[name]!,
    url: request.url,
    method: request.method,
    messageId: message.id,
    retried,
    at,
  });
  if (!span) return;
  request.headers[name] = span.traceParent;
  sent.span = span;
}

function answerOf(result: RequestResult): { status?: number; error?: string } {
  return result.ok ? { status: result.status } : { error: result.error };
}
