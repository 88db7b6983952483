import { processEnvironment } from '../config';
import { expectDestination, type BodyOf, type DestinationDefinition } from '../contract';
import type { CallbackMessage, CallbackOptions, FailureCallbackMessage, SchemaOutput } from './received-messages';
import { idempotencyGuard } from '../idempotency/guard';
import {
  QUIET_START,
  checkHandler,
  createReceiver,
  type Endpoint,
  type EndpointOptions,
  type MessageHandler,
  type Receiver,
} from './create-receiver';
import type { ReceiverOptions, ResponseSchema, SourceSchema } from './receiver-options';

/**
 * The three handler factories every adapter offers, returning the adapter's own handler type `H`
 * (an Express `RequestHandler`, a Next.js route handler, ...); handlers get the message and, second,
 * the adapter's context `C` (Hono's `Context`, ...).
 */
export interface EndpointFactories<H, C = unknown> {
  /** A typed destination: the handler gets the definition's schema output as `message.body`. */
  destination<D extends DestinationDefinition>(definition: D, handler: MessageHandler<BodyOf<D>, C>, options?: EndpointOptions): H;
  /** A callback, called by the service after every delivery attempt; bodies arrive decoded. */
  callback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>, context: C) => unknown,
    options?: CallbackOptions<S, R>,
  ): H;
  /** A failure callback, called once delivery failed for good, with the DLQ id. */
  failureCallback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>, context: C) => unknown,
    options?: CallbackOptions<S, R>,
  ): H;
}

/** {@link EndpointFactories} over one shared receiver, made when the app starts. */
export interface AdapterHandlers<H, C = unknown> extends EndpointFactories<H, C> {
  /** The core receiver behind them, for custom glue. */
  readonly receiver: Receiver;
}

/**
 * Builds an adapter's `createMailroom(options)`: one receiver (keys resolved once, at definition time,
 * not per request), and each endpoint handed to `wrap`, the only framework-specific part.
 *
 * @example
 * export const createMailroom = (options?: ReceiverOptions) => bindReceiver(options, (endpoint) => endpoint.fetch);
 */
export function bindReceiver<H, O extends ReceiverOptions = ReceiverOptions, C = unknown>(
  options: O | undefined,
  wrap: (endpoint: Endpoint, options: O) => H,
): AdapterHandlers<H, C> {
  const receiver = createReceiver(options);
  const settings = (options ?? {}) as O;
  return { ...factories((make) => wrap(make(receiver), settings)), receiver };
}

/**
 * {@link bindReceiver} for runtimes whose settings arrive with each request (a Cloudflare Worker's
 * `env` bindings): `wrap` gets, instead of an endpoint, a function from that request's environment to
 * the endpoint. The `MAILROOM_*` values found there win over `process.env`; options passed in code
 * win over both, and an `env` option stops the lookup. One receiver per distinct set of values, kept.
 *
 * @example
 * export const createMailroom = (options) => bindReceiverPerEnvironment(options, (endpointFor) => (c) => endpointFor(c.env).fetch(c.req.raw, c));
 */
export function bindReceiverPerEnvironment<H, O extends ReceiverOptions = ReceiverOptions, C = unknown>(
  options: O | undefined,
  wrap: (endpointFor: (env: unknown) => Endpoint, options: O) => H,
): EndpointFactories<H, C> {
  const settings = (options ?? {}) as O;
  const receivers = new Map<string, Receiver>();
  // Without request settings (Node, Bun, Deno) every request takes this one, with no lookup.
  let fromProcess: Receiver | undefined;
  const receiverFor = (env: unknown): Receiver => {
    const values = settings.env === undefined ? mailroomValues(env) : undefined;
    if (values === undefined) return (fromProcess ??= createReceiver({ ...settings, [QUIET_START]: true }));
    const key = JSON.stringify(values);
    let receiver = receivers.get(key);
    if (!receiver) {
      // Made by a request, which reports a missing key itself: no start-up report on top.
      receiver = createReceiver({ ...settings, [QUIET_START]: true, env: { ...processEnvironment(), ...values } });
      receivers.set(key, receiver);
    }
    return receiver;
  };
  return factories((make) => {
    const endpoints = new WeakMap<Receiver, Endpoint>();
    let fromProcessEndpoint: Endpoint | undefined;
    return wrap((env) => {
      const receiver = receiverFor(env);
      if (receiver === fromProcess && fromProcessEndpoint) return fromProcessEndpoint;
      let endpoint = endpoints.get(receiver);
      if (!endpoint) {
        endpoint = make(receiver);
        endpoints.set(receiver, endpoint);
        if (receiver === fromProcess) fromProcessEndpoint = endpoint;
      }
      return endpoint;
    }, settings);
  });
}

/**
 * The string `MAILROOM_*` entries of a request's environment (a Worker's bindings hold other things
 * too), or `undefined` when it has none: checked on every request, so nothing is allocated then.
 */
function mailroomValues(env: unknown): Record<string, string> | undefined {
  if (env === null || typeof env !== 'object') return undefined;
  let values: Record<string, string> | undefined;
  for (const name in env) {
    if (!name.startsWith('MAILROOM_')) continue;
    const value = (env as Record<string, unknown>)[name];
    if (typeof value === 'string') (values ??= {})[name] = value;
  }
  return values;
}

/**
 * The three factories over `build`, which turns "make this endpoint from a receiver" into the
 * adapter's handler. Definitions and handlers are checked here, when the route is declared, even when
 * the receiver is made later.
 */
function factories<H, C>(build: (make: (receiver: Receiver) => Endpoint) => H): EndpointFactories<H, C> {
  return {
    destination: (definition, handler, endpointOptions) => {
      expectDestination(definition);
      checkHandler(handler);
      idempotencyGuard(endpointOptions?.idempotency);
      return build((receiver) => receiver.destination(definition, handler as MessageHandler<BodyOf<typeof definition>>, endpointOptions));
    },
    callback: (handler, callbackOptions) => {
      checkHandler(handler);
      idempotencyGuard(callbackOptions?.idempotency);
      return build((receiver) => receiver.callback(handler as never, callbackOptions));
    },
    failureCallback: (handler, callbackOptions) => {
      checkHandler(handler);
      idempotencyGuard(callbackOptions?.idempotency);
      return build((receiver) => receiver.failureCallback(handler as never, callbackOptions));
    },
  };
}
