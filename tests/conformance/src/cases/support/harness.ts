import type { CallbackMessage, FailureCallbackMessage, ReceivedMessage, ReceiverOptions, ReceiveStage } from '@mailroom/core';
import { signRequest, type SignRequestOptions } from '@mailroom/core/testing';
import { afterAll, beforeAll, beforeEach, vi, type Mock } from 'vitest';
import { BASE_OPTIONS, clock, CURRENT_KEY, NEXT_KEY, orderPlaced, PATHS } from '../../fixtures';
import type { ConformanceTarget, RunningTarget, TargetResponse } from '../../target';

type EndpointName = 'destination' | 'callback' | 'failureCallback';

type OnError = NonNullable<ReceiverOptions['onError']>;

/** One way to configure the receiver; the target is started once per profile, not once per case. */
export interface Profile {
  /** Shown in the describe block, e.g. `headerPrefix Upstash`. */
  name: string;
  /** Merged over BASE_OPTIONS. */
  options?: Partial<ReceiverOptions>;
}

/** A delivery to make: what `signRequest` takes, plus where to send it and how to spoil it afterwards. */
export type Delivery = Omit<SignRequestOptions, 'url' | 'now' | 'env' | 'currentSigningKey' | 'nextSigningKey' | 'headerPrefix'> & {
  /** Default `destination`. */
  to?: EndpointName;
  /** Default `POST`. */
  method?: string;
  /** Bytes to send instead of the signed ones (the token still covers the signed body). */
  sendBody?: Uint8Array;
  /** The last word on the headers: rename, drop or replace one after signing. */
  editHeaders?: (headers: Record<string, string>) => Record<string, string>;
  /** A query string (`?...`) on the URL called and signed for, byte for byte. */
  query?: string;
};

/** A started target plus fresh spies for every case. */
export interface Harness {
  readonly target: ConformanceTarget;
  readonly headerPrefix: string;
  readonly destination: Mock<(message: ReceivedMessage<unknown>) => unknown>;
  readonly callback: Mock<(message: CallbackMessage) => unknown>;
  readonly failureCallback: Mock<(message: FailureCallbackMessage) => unknown>;
  readonly onError: Mock<OnError>;
  /** The URL the service signs for this endpoint. */
  url(endpoint: EndpointName): string;
  /** What the called path has before the suite's paths (a REST API's stage), or ''. */
  pathPrefix(): string;
  deliver(delivery?: Delivery): Promise<TargetResponse>;
  /** The first message the destination handler got in this case (fails the case when there is none). */
  received(): ReceivedMessage<unknown>;
  /** The stages `onError` reported in this case, in order. */
  stages(): ReceiveStage[];
  /** The `reason` of the SignatureError passed to `onError`, if one was. */
  signatureReason(): string | undefined;
}

interface Spies {
  destination: Harness['destination'];
  callback: Harness['callback'];
  failureCallback: Harness['failureCallback'];
  onError: Harness['onError'];
}

function freshSpies(): Spies {
  return {
    destination: vi.fn<(message: ReceivedMessage<unknown>) => unknown>(),
    callback: vi.fn<(message: CallbackMessage) => unknown>(),
    failureCallback: vi.fn<(message: FailureCallbackMessage) => unknown>(),
    onError: vi.fn<OnError>(),
  };
}

/**
 * Starts `target` with `profile` around the enclosing describe block. Cases swap behaviour through
 * the spies (`harness.destination.mockImplementation(...)`); the app itself keeps delegating to
 * whatever spy is current, so one start serves every case and the suite stays fast.
 */
export function useTarget(target: ConformanceTarget, profile: Profile): Harness {
  const options: ReceiverOptions = { ...BASE_OPTIONS, ...profile.options };
  const headerPrefix = options.headerPrefix ?? 'Service';
  let spies = freshSpies();
  let running: RunningTarget | undefined;

  beforeAll(async () => {
    running = await target.start({
      options: { ...options, onError: (error, context) => spies.onError(error, context) },
      destination: { definition: orderPlaced, handler: (message) => spies.destination(message) },
      callback: (message) => spies.callback(message),
      failureCallback: (message) => spies.failureCallback(message),
      callbackOptions: {},
      failureCallbackOptions: { source: orderPlaced },
      paths: { ...PATHS },
    });
  });
  afterAll(async () => {
    await running?.close();
    running = undefined;
  });
  beforeEach(() => {
    spies = freshSpies();
  });

  const started = (): RunningTarget => {
    if (!running) throw new Error(`target "${target.name}" (${profile.name}) is not running: did start() fail?`);
    return running;
  };
  const url = (endpoint: EndpointName): string => (options.publicUrl ?? started().origin) + PATHS[endpoint];

  return {
    target,
    headerPrefix,
    get destination() {
      return spies.destination;
    },
    get callback() {
      return spies.callback;
    },
    get failureCallback() {
      return spies.failureCallback;
    },
    get onError() {
      return spies.onError;
    },
    url,
    pathPrefix: () => started().pathPrefix ?? '',
    deliver: async (delivery = {}) => {
      const { to = 'destination', method = 'POST', sendBody, editHeaders, query = '', ...signing } = delivery;
      const signed = await signRequest({
        currentSigningKey: CURRENT_KEY,
        nextSigningKey: NEXT_KEY,
        headerPrefix,
        ...(options.issuer !== undefined ? { issuer: options.issuer } : {}),
        now: clock,
        env: {},
        messageId: 'msg_conformance_1',
        ...signing,
        url: url(to) + query,
      });
      const headers = editHeaders ? editHeaders(signed.headers) : signed.headers;
      return started().send({ method, path: PATHS[to] + query, headers, body: sendBody ?? signed.body });
    },
    received: () => {
      const call = spies.destination.mock.calls[0];
      if (!call) throw new Error('the destination handler was not called');
      return call[0];
    },
    stages: () => spies.onError.mock.calls.map(([, context]) => context.stage),
    signatureReason: () => {
      for (const [error] of spies.onError.mock.calls) {
        // Duck-typed rather than instanceof: an adapter may load core through another module format.
        if (error instanceof Error && error.name === 'SignatureError') return (error as Error & { reason?: string }).reason;
      }
      return undefined;
    },
  };
}

/** Replaces (or, with `undefined`, removes) the signature header, whatever the letter case of its name. */
export function withToken(headerPrefix: string, token: string | undefined): (headers: Record<string, string>) => Record<string, string> {
  const name = `${headerPrefix}-signature`.toLowerCase();
  return (headers) => {
    const out = Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name));
    return token === undefined ? out : { ...out, [`${headerPrefix}-Signature`]: token };
  };
}
