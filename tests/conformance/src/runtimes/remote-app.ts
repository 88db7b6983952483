import { NonRetryableError, RetryAfterError, type ReceiverOptions } from '@mailroom/core';
import { createMemoryStore } from '@mailroom/core/idempotency';
import { orderPlaced, PATHS } from '../fixtures';
import { honoApp } from '../targets/hono-app';
import { webApp, workerApp } from '../targets/web-apps';
import type { TargetSetup } from '../target';
import { encode, type RemoteAppKind, type RemoteConfig, type WireError } from './wire';

// The suite's app inside another runtime (Bun, Deno, workerd), bundled into one module: Hono's, or
// none (core's Web entry, the Cloudflare entry). Its
// handlers and `onError` call back to the test process over HTTP, where the suite's spies run: a case
// sets a spy's behaviour there, and the answer (a value, or the error to throw) comes back here.

type AppMaker = (setup: TargetSetup) => { fetch: unknown };
const builtIn: Partial<Record<RemoteAppKind, AppMaker>> = { hono: honoApp, web: webApp, workers: workerApp };

/**
 * The app for one started target, configured by what the test process sent (`MAILROOM_CONFORMANCE`).
 * `more` adds apps a bundle of its own carries (Elysia, which only Bun runs).
 */
export function remoteApp(
  config: RemoteConfig,
  more: Partial<Record<RemoteAppKind, AppMaker>> = {},
): {
  fetch: (request: Request, env?: unknown, context?: unknown) => Promise<Response>;
  /** Resolves once what the app reported while starting (a receiver made without keys says so) has reached the test. */
  started: () => Promise<void>;
} {
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
        body: JSON.stringify({ error: encode(error), where: encode(where) }),
      }).then((response) => void response.body?.cancel());
      reports.add(report);
    },
  };
  // Reports still on their way are awaited before the answer leaves: the test reads them on the answer.
  const reports = new Set<Promise<void>>();
  const make = { ...builtIn, ...more }[config.app];
  if (!make) throw new Error(`this bundle has no ${config.app} app`);
  const app = make({
    options,
    destination: { definition: orderPlaced, handler: (message) => call('destination', message) },
    callback: (message) => call('callback', message),
    failureCallback: (message) => call('failureCallback', message),
    callbackOptions: {},
    failureCallbackOptions: config.failureSourceIsDefinition ? { source: orderPlaced } : {},
    paths: { ...PATHS },
  });
  return {
    started: async () => {
      await Promise.all(reports);
      reports.clear();
    },
    fetch: async (request, env, context) => {
      const response = await (app.fetch as (request: Request, env?: unknown, context?: never) => Promise<Response>)(
        request,
        env,
        context as never,
      );
      await Promise.all(reports);
      reports.clear();
      return response;
    },
  };
}

/** The error a spy threw, as the handler throws it here: core's own classes keep their meaning. */
function rebuild(error: WireError): Error {
  if (error.name === 'NonRetryableError') return new NonRetryableError(error.message);
  if (error.name === 'RetryAfterError') return new RetryAfterError(error.seconds ?? 0, error.message, { status: error.status ?? 503 });
  return Object.assign(new Error(error.message), { name: error.name });
}
