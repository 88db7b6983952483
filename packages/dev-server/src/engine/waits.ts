import { ServiceError } from '../errors';
import type { EventBus } from '../events';
import type { EngineConfig } from '../settings';
import type { WaiterRecord, WorkflowRunRecord } from '../state/records';
import type { Store } from '../state/store';
import type { Acceptance } from './acceptance';
import type { Engine } from './create-engine';

// What a workflow run waits for, and how the wait ends: an event (`context.waitForEvent`, ended by
// `notify` or its timeout), a call of its webhook (`waitForWebhook`), an invoked run's end
// (`context.invoke`). Either way the run gets its step back as a message to its workflow URL.

export interface WaitsParts {
  store: Store;
  engine: Engine;
  events: EventBus;
  config: EngineConfig;
  acceptance: Acceptance;
}

export interface Waits {
  /** A run starts waiting: ends at once with an event kept for it, else at its deadline. */
  add(waiter: WaiterRecord, callerIp: string): Promise<void>;
  /**
   * Delivers an event to every waiter of `eventId` (of one run, when given) and answers who got it.
   * Naming the run turns on lookback: when that run does not wait for the event yet, the event is
   * kept for its next wait for it.
   */
  notify(
    eventId: string,
    runId: string | undefined,
    dataBase64: string,
    callerIp: string,
  ): Promise<Array<{ waiter: WaiterRecord; messageId: string }>>;
  /** A call of a run's webhook: ends its wait for that webhook, or is kept for the next one. */
  callWebhook(runId: string, eventId: string, eventBase64: string, callerIp: string): Promise<void>;
  /** Ends a wait now as its timeout would. */
  timeOut(waiter: WaiterRecord): Promise<string>;
  /** Every wait of a run ends without giving it back (the run was cancelled). */
  drop(runId: string): Promise<void>;
  waitersOf(eventId: string): WaiterRecord[];
  /** Arms the timeout of every waiter the state holds, and sends each invoked run's end to its invoker. */
  start(): void;
  stop(): void;
}

/** What one run may hold of events that came before it waited (a bound against a flood of early calls). */
const EARLY_EVENTS_PER_RUN = 64;
const EARLY_EVENT_BYTES_PER_RUN = 4 * 1024 * 1024;

export function createWaits(parts: WaitsParts): Waits {
  const { store, engine, events, acceptance } = parts;
  const timerKey = (waiter: WaiterRecord): string => `waiter:${waiter.id}`;

  const release = async (waiter: WaiterRecord, result: Record<string, unknown>, url: string, callerIp: string): Promise<string> => {
    engine.cancelTimer(timerKey(waiter));
    await store.commit({ type: 'waiter.removed', id: waiter.id });
    // The step as the run logs show it: what it waited for, and until when.
    const wait = {
      waitEventId: waiter.eventId,
      waitTimeoutDuration: waiter.timeout,
      waitTimeoutDeadline: Math.floor(waiter.deadline / 1000),
    };
    return acceptance.returnStep(url, waiter.timeoutHeaders, { ...waiter.step, ...wait, ...result }, callerIp);
  };

  const timeOut = (waiter: WaiterRecord): Promise<string> => release(waiter, { waitTimeout: true }, waiter.timeoutUrl, '127.0.0.1');

  const arm = (waiter: WaiterRecord): void => {
    engine.timer(timerKey(waiter), waiter.deadline, () => {
      const live = store.state.waiters.get(waiter.id);
      if (!live) return;
      timeOut(live).catch((error: unknown) =>
        events.emit({ type: 'error', message: `wait for ${live.eventId} could not time out: ${String(error)}` }),
      );
    });
  };

  const waitersOf = (eventId: string): WaiterRecord[] => [...store.state.waiters.values()].filter((waiter) => waiter.eventId === eventId);

  /** Keeps an event for the run's next wait for it, within the run's bound (429 past it). */
  const keepEarly = async (runId: string, eventId: string, dataBase64: string): Promise<void> => {
    const stored = Object.values(store.state.runs.get(runId)?.earlyEvents ?? {}).flat();
    const bytes = stored.reduce((sum, data) => sum + data.length, dataBase64.length);
    if (stored.length >= EARLY_EVENTS_PER_RUN || bytes > (EARLY_EVENT_BYTES_PER_RUN * 4) / 3) {
      throw new ServiceError(
        429,
        `workflow run ${runId} already holds ${stored.length} events it has not waited for yet (at most ${EARLY_EVENTS_PER_RUN}, ${EARLY_EVENT_BYTES_PER_RUN / 1048576} MiB); try again once it waits for them`,
        { 'Retry-After': '60' },
      );
    }
    await store.commit({ type: 'run.event-stored', runId, eventId, dataBase64 });
  };

  let unsubscribe: (() => void) | undefined;

  return {
    async add(waiter, callerIp) {
      await store.commit({ type: 'waiter.added', waiter });
      // An event that came before the run waited for it: the wait ends at once with it.
      const early = store.state.runs.get(waiter.runId)?.earlyEvents?.[waiter.eventId]?.[0];
      if (early === undefined) return arm(waiter);
      await store.commit({ type: 'run.event-taken', runId: waiter.runId, eventId: waiter.eventId });
      await release(waiter, { out: early, waitTimeout: false }, waiter.url, callerIp);
    },
    async notify(eventId, runId, dataBase64, callerIp) {
      const waiters = waitersOf(eventId).filter((waiter) => runId === undefined || waiter.runId === runId);
      const notified: Array<{ waiter: WaiterRecord; messageId: string }> = [];
      for (const waiter of waiters) {
        notified.push({ waiter, messageId: await release(waiter, { out: dataBase64, waitTimeout: false }, waiter.url, callerIp) });
      }
      if (runId !== undefined && waiters.length === 0) {
        if (store.state.runs.get(runId)?.state !== 'RUN_STARTED') {
          throw new ServiceError(404, `workflow run ${runId} not found or already ended`);
        }
        await keepEarly(runId, eventId, dataBase64);
      }
      return notified;
    },
    async callWebhook(runId, eventId, eventBase64, callerIp) {
      const waiter = waitersOf(eventId).find((candidate) => candidate.runId === runId && candidate.step.stepType === 'WaitForWebhook');
      if (waiter) await release(waiter, { out: eventBase64, waitTimeout: false }, waiter.url, callerIp);
      else await keepEarly(runId, eventId, eventBase64);
    },
    timeOut,
    async drop(runId) {
      for (const waiter of [...store.state.waiters.values()]) {
        if (waiter.runId !== runId) continue;
        engine.cancelTimer(timerKey(waiter));
        await store.commit({ type: 'waiter.removed', id: waiter.id });
      }
    },
    waitersOf,
    start() {
      for (const waiter of store.state.waiters.values()) arm(waiter);
      unsubscribe = answerInvokers(parts);
    },
    stop() {
      unsubscribe?.();
    },
  };
}

/** Sends the end of every invoked run to its invoker, as the result of its Invoke step. */
function answerInvokers({ store, events, acceptance }: WaitsParts): () => void {
  return events.subscribe((event) => {
    if (event.type !== 'workflow-run') return;
    const run = store.state.runs.get(event.runId);
    const invoker = run?.trigger.workflow?.invoker;
    if (!run || !invoker) return;
    acceptance
      .returnStep(invoker.url, invoker.headers, { ...invoker.step, out: JSON.stringify(invokeResult(run)) }, '127.0.0.1')
      .catch((error: unknown) =>
        events.emit({ type: 'error', message: `the result of run ${run.runId} could not reach run ${invoker.runId}: ${String(error)}` }),
      );
  });
}

/** What `context.invoke` answers: the invoked run's return value, or how it ended without one. */
function invokeResult(run: WorkflowRunRecord): { body?: string; isFailed: boolean; isCanceled: boolean } {
  const result = { isFailed: run.state === 'RUN_FAILED', isCanceled: run.state === 'RUN_CANCELED' };
  const body = run.state === 'RUN_SUCCESS' && run.responseBase64 ? Buffer.from(run.responseBase64, 'base64').toString('utf8') : '';
  return body === '' ? result : { body, ...result };
}
