import type { CallbackMessage, FailureCallbackMessage, ReceivedMessage, ReceiverOptions } from '@mailroom/core';
import { signRequest } from '@mailroom/core/testing';
import { afterAll, beforeAll, beforeEach, expect, vi, type Mock } from 'vitest';
import { BASE_OPTIONS, clock, CURRENT_KEY, NEXT_KEY, ORDER, orderPlaced, PATHS, utf8 } from '../fixtures';
import type { ConformanceTarget, RunningTarget } from '../target';

type OnError = NonNullable<ReceiverOptions['onError']>;

/** A conformance target started once for a describe block, with spies swapped in for every case. */
export interface BadInputApp {
  /** `http://127.0.0.1:<port>`: always a real socket. */
  readonly origin: string;
  readonly host: string;
  readonly handlers: {
    readonly destination: Mock<(message: ReceivedMessage<unknown>) => unknown>;
    readonly callback: Mock<(message: CallbackMessage) => unknown>;
    readonly failureCallback: Mock<(message: FailureCallbackMessage) => unknown>;
  };
  readonly onError: Mock<OnError>;
  /** Headers and bytes of a delivery signed for the destination, as the service would send it. */
  signed(body?: unknown, options?: { contentType?: string }): Promise<{ headers: Record<string, string>; body: Uint8Array }>;
  /** No handler of any endpoint ran in this case. */
  expectNoHandlerCalled(): void;
  /** The `code` of every error `onError` saw in this case, in order. */
  reportedCodes(): string[];
  /** A valid delivery still gets 200 and reaches the handler with its exact bytes. */
  expectStillServing(): Promise<void>;
}

/**
 * Starts `target` (the conformance suite's own apps) with the suite's fixed options around the
 * enclosing describe block. Only targets behind a real socket make sense here.
 */
export function useBadInputApp(target: ConformanceTarget, overrides: Partial<ReceiverOptions> = {}): BadInputApp {
  let running: RunningTarget | undefined;
  let spies = freshSpies();

  beforeAll(async () => {
    running = await target.start({
      options: { ...BASE_OPTIONS, ...overrides, onError: (error, context) => spies.onError(error, context) },
      destination: { definition: orderPlaced, handler: (message) => spies.destination(message) },
      callback: (message) => spies.callback(message),
      failureCallback: (message) => spies.failureCallback(message),
      callbackOptions: {},
      failureCallbackOptions: { source: orderPlaced },
      paths: { ...PATHS },
    });
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(running.origin)) {
      throw new Error(`bad-input cases need a target behind a real socket; "${target.name}" runs at ${running.origin}`);
    }
  }, 30_000);
  afterAll(async () => {
    await running?.close();
  });
  beforeEach(() => {
    spies = freshSpies();
  });

  const started = (): RunningTarget => {
    if (!running) throw new Error(`target "${target.name}" is not running: did start() fail?`);
    return running;
  };

  const app: BadInputApp = {
    get origin() {
      return started().origin;
    },
    get host() {
      return new URL(started().origin).host;
    },
    handlers: {
      get destination() {
        return spies.destination;
      },
      get callback() {
        return spies.callback;
      },
      get failureCallback() {
        return spies.failureCallback;
      },
    },
    get onError() {
      return spies.onError;
    },
    async signed(body = ORDER, options = {}) {
      const delivery = await signRequest({
        currentSigningKey: CURRENT_KEY,
        nextSigningKey: NEXT_KEY,
        now: clock,
        env: {},
        url: started().origin + PATHS.destination,
        body,
        messageId: 'msg_bad_input_1',
        ...(options.contentType !== undefined ? { contentType: options.contentType } : {}),
      });
      return { headers: delivery.headers, body: delivery.body };
    },
    expectNoHandlerCalled() {
      expect(spies.destination).not.toHaveBeenCalled();
      expect(spies.callback).not.toHaveBeenCalled();
      expect(spies.failureCallback).not.toHaveBeenCalled();
    },
    reportedCodes() {
      return spies.onError.mock.calls.map(([error]) => String((error as { code?: unknown } | null)?.code));
    },
    async expectStillServing() {
      const { headers, body } = await app.signed();
      const before = spies.destination.mock.calls.length;
      const response = await started().send({ method: 'POST', path: PATHS.destination, headers, body });
      expect(response.status, `the next valid request after the bad one: ${response.body}`).toBe(200);
      expect(spies.destination).toHaveBeenCalledTimes(before + 1);
      const message = spies.destination.mock.calls.at(-1)?.[0];
      expect(Array.from(message?.rawBody ?? [])).toEqual(Array.from(utf8(JSON.stringify(ORDER))));
    },
  };
  return app;
}

function freshSpies() {
  return {
    destination: vi.fn<(message: ReceivedMessage<unknown>) => unknown>(),
    callback: vi.fn<(message: CallbackMessage) => unknown>(),
    failureCallback: vi.fn<(message: FailureCallbackMessage) => unknown>(),
    onError: vi.fn<OnError>(),
  };
}
