import { NonRetryableError, RetryAfterError, type ReceiverOptions } from '@mailroom/core';
import { createMemoryStore } from '@mailroom/core/idempotency';
import { orderPlaced, PATHS } from '../fixtures';
import type { TargetSetup } from '../target';
import { encode, type RemoteConfig, type WireError } from './wire';

// The suite's setup on the far side of a process or thread boundary (Bun, Deno, workerd, Nitro's dev
// worker): the receiver options that are data, and handlers and `onError` that call back to the test
// process over HTTP, where the suite's spies run. A case sets a spy's behaviour there, and the answer
// (a value, or the error to throw) comes back here.

/** A setup whose handlers call the bridge; `settle` resolves once every report made so far has reached the test. */
export function remoteSetup(config: RemoteConfig): { setup: TargetSetup; settle: () => Promise<void> } {
  const call = async (endpoint: string, message: unknown): Promise<unknown> => {
    const response = await fetch(`${config.bridgeUrl}/call/${endpoint}`, { method: 'POST', body: JSON.stringify(encode(message)) });
    const outcome = (await response.json()) as { value?: unknown; error?: WireError };
    if (outcome.error) throw rebuild(outcome.error);
    return outcome.value;
  };
  const { idempotency, ...settings } = config.options;
  const options: ReceiverOptions = {
    ...settings,
    ...(idempotency === 'memory' ? { idempotency: createMemoryStore() } : {}),
    now: () => config.nowMs,
    onError: (error, where) => {
      const report = fetch(`${config.bridgeUrl}/error`, {
        method: 'POST',
        // The stage only: the request carries the framework's own context (an h3 event, circular).
        body: JSON.stringify({ error: encode(error), where: encode({ stage: where.stage }) }),
      }).then((response) => void response.body?.cancel());
      reports.add(report);
      // Each report leaves the set once delivered: a settle running for another request never drops it unseen.
      void report.then(
        () => reports.delete(report),
        () => undefined,
      );
    },
  };
  // Reports still on their way are awaited before the answer leaves: the test reads them on the answer.
  const reports = new Set<Promise<void>>();
  const setup: TargetSetup = {
    options,
    destination: { definition: orderPlaced, handler: (message) => call('destination', message) },
    callback: (message) => call('callback', message),
    failureCallback: (message) => call('failureCallback', message),
    callbackOptions: {},
    failureCallbackOptions: config.failureSourceIsDefinition ? { source: orderPlaced } : {},
    paths: { ...PATHS },
  };
  return {
    setup,
    settle: async () => {
      await Promise.all([...reports]);
    },
  };
}

/** The error a spy threw, as the handler throws it here: core's own classes keep their meaning. */
function rebuild(error: WireError): Error {
  if (error.name === 'NonRetryableError') return new NonRetryableError(error.message);
  if (error.name === 'RetryAfterError') return new RetryAfterError(error.seconds ?? 0, error.message, { status: error.status ?? 503 });
  return Object.assign(new Error(error.message), { name: error.name });
}
