import type { StandardSchemaV1 } from '@standard-schema/spec';
import { processEnvironment } from '../config';
import { type BodyOf, type DestinationDefinition, expectDestination } from '../contract';
import { ConfigError, ValidationError } from '../errors';
import { guardedDelivery, type IdempotencyOption } from '../idempotency/guard';
import { toPromise, whenReady } from '../maybe-promise';
import { loadResponseSchemas } from '../schemas/lazy';
import {
  fetchThrough,
  guardOf,
  receiveMessage,
  reportAndMap,
  reportMissingKeys,
  resolveSetup,
  runPipeline,
  settingsFromEnvironment,
} from './pipeline';
import {
  type CallbackMessage,
  type CallbackOptions,
  type FailureCallbackMessage,
  type ReceivedMessage,
  type SchemaOutput,
  toCallbackMessage,
  tracedDelivery,
} from './received-messages';
import type { InboundRequest, OutboundResponse, ReceiverOptions } from './receiver-options';

/** One receiving endpoint, usable from any framework through plain data or Web `Request`/`Response`. */
export interface Endpoint {
  handle(input: InboundRequest): Promise<OutboundResponse>;
  /**
   * `handle` without the promise when nothing had to wait (a node:crypto verification, a synchronous
   * schema and handler): the answer can then be written in the same tick the body arrived.
   */
  respond(input: InboundRequest): OutboundResponse | Promise<OutboundResponse>;
  /** `context` is handed to the handler as its second argument (an adapter's framework setup). */
  fetch(request: Request, context?: unknown): Promise<Response>;
  /** The body limit, so Node adapters can enforce it while streaming. */
  readonly maxBodyBytes: number;
  /** Maps a failure that happened before `handle` (reading the body) to the same answers `handle` gives. */
  errorResponse(error: unknown, request: InboundRequest): OutboundResponse;
}

/** An endpoint's own settings. */
export interface EndpointOptions {
  /**
   * Handle each message once however often it is delivered: a store from `@mailroom/core/idempotency`
   * (or `{ store, leaseSeconds, ttlSeconds }`); `false` opts out of the receiver's default.
   */
  idempotency?: IdempotencyOption | false;
}

/** A handler gets the message, and second what its adapter passes along (Hono's `Context`, ...). */
export type MessageHandler<T, C = unknown> = (message: ReceivedMessage<T>, context: C) => unknown;

/**
 * What an app builds its endpoints with: one receiver (its keys and settings), an endpoint per route.
 * What adapters and guards use besides is apart, in {@link ReceiverPipeline} (`pipelineOf`).
 */
export interface Receiver {
  /** A typed destination endpoint: the handler gets the definition's schema output as `message.body`. */
  destination<D extends DestinationDefinition>(definition: D, handler: MessageHandler<BodyOf<D>>, options?: EndpointOptions): Endpoint;
  /** An endpoint with an optional schema of its own (no definition). */
  message<S extends StandardSchemaV1 | undefined = undefined>(
    handler: MessageHandler<SchemaOutput<S>>,
    options?: EndpointOptions & { schema?: S },
  ): Endpoint;
  /** A callback endpoint, called by the service after every delivery attempt. */
  callback<S extends StandardSchemaV1 | DestinationDefinition | undefined = undefined, R extends StandardSchemaV1 | undefined = undefined>(
    handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>, context: unknown) => unknown,
    options?: CallbackOptions<S, R>,
  ): Endpoint;
  /** A failure-callback endpoint, called once delivery failed for good. */
  failureCallback<
    S extends StandardSchemaV1 | DestinationDefinition | undefined = undefined,
    R extends StandardSchemaV1 | undefined = undefined,
  >(
    handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>, context: unknown) => unknown,
    options?: CallbackOptions<S, R>,
  ): Endpoint;
}

/**
 * A receiver's pipeline as adapters and guards use it (`pipelineOf(receiver)`, from
 * `@mailroom/core/adapter`): every check without a handler, the answer for any failure, and the
 * settings an adapter reads while it reads the body.
 */
export interface ReceiverPipeline {
  /**
   * Every check up to the handler (method, size, signature, URL, parsing, schema) without calling one:
   * resolves with the message or rejects with the typed error. For guards (NestJS) and custom glue.
   */
  receive<T = unknown>(input: InboundRequest, schema?: StandardSchemaV1<unknown, T>): Promise<ReceivedMessage<T>>;
  /** Like `receive`, for a callback: the decoded {@link CallbackMessage}. */
  receiveCallback<
    S extends StandardSchemaV1 | DestinationDefinition | undefined = undefined,
    R extends StandardSchemaV1 | undefined = undefined,
  >(input: InboundRequest, options?: CallbackOptions<S, R>): Promise<CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>>;
  /** Like `receive`, for a failure callback: the decoded {@link FailureCallbackMessage}. */
  receiveFailureCallback<
    S extends StandardSchemaV1 | DestinationDefinition | undefined = undefined,
    R extends StandardSchemaV1 | undefined = undefined,
  >(input: InboundRequest, options?: CallbackOptions<S, R>): Promise<FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>>;
  /**
   * Throws the `ConfigError` every request would get when no signing key is configured, so frameworks
   * with a start-up phase (NestJS) can fail there instead of at the first delivery.
   */
  assertConfigured(): void;
  /** Maps any error of `receive` or a handler to the response the service should get. */
  errorResponse(error: unknown, request: InboundRequest): OutboundResponse;
  /** The pipeline for a verified-and-acknowledged endpoint without a handler. */
  handle(input: InboundRequest): Promise<OutboundResponse>;
  /** `context` is handed to the handler as its second argument (an adapter's framework setup). */
  fetch(request: Request, context?: unknown): Promise<Response>;
  readonly headerPrefix: string;
  readonly maxBodyBytes: number;
}

/** Marks options of a receiver made on a first request: that request reports a missing key itself. */
export const QUIET_START: unique symbol = Symbol('mailroom.quietStart');

/**
 * The framework-neutral receiving pipeline: method -> body size -> signature -> URL -> parse -> schema
 * -> handler. Keys come from the options or `MAILROOM_CURRENT_SIGNING_KEY` / `MAILROOM_NEXT_SIGNING_KEY`;
 * when none is configured every request is refused with 500 (fail closed) rather than accepted unverified.
 *
 * @example
 * const receiver = createReceiver({ currentSigningKey, nextSigningKey });
 * export const POST = receiver.destination(orderPlaced, async (message) => save(message.body)).fetch;
 */
export function createReceiver(options: ReceiverOptions = {}): Receiver {
  const setup = resolveSetup(options);
  // A missing key is said at start-up as well as on every refused delivery: an app that boots without
  // keys otherwise looks healthy until the retries run out. Keys from the process are still read again
  // at the first request; under a test runner (NODE_ENV=test) the test sets them later, so nothing is said.
  const keysInCode = options.env !== undefined || options.currentSigningKey !== undefined || options.nextSigningKey !== undefined;
  const env = keysInCode ? undefined : processEnvironment();
  const atStart = env === undefined ? setup.verify : env.NODE_ENV === 'test' ? undefined : settingsFromEnvironment(options, env).verify;
  if (atStart instanceof ConfigError && !(options as { [QUIET_START]?: true })[QUIET_START]) reportMissingKeys(setup, atStart);
  // Synchronous where every step is (see whenReady); the public `receive` always answers with a promise.
  const receiveNow = <T>(input: InboundRequest, schema?: StandardSchemaV1<unknown, T>) => receiveMessage<T>(setup, input, schema);
  const receive = <T>(input: InboundRequest, schema?: StandardSchemaV1<unknown, T>) => toPromise(() => receiveNow(input, schema));
  const makeEndpoint = (consume: (input: InboundRequest) => unknown): Endpoint => {
    const respond = (input: InboundRequest) => runPipeline(setup, input, consume);
    const handle = (input: InboundRequest) => Promise.resolve(respond(input));
    return {
      handle,
      respond,
      fetch: (request, handlerContext) => fetchThrough(setup, request, handle, handlerContext),
      maxBodyBytes: setup.maxBodyBytes,
      errorResponse: (error, request) => reportAndMap(setup, error, request).response,
    };
  };
  const acknowledge = makeEndpoint((input) => whenReady(receiveNow(input), () => undefined));
  // A callback's body is checked with core's own schemas, loaded with the first callback.
  const receiveCallbackDelivery = async (input: InboundRequest, failure: boolean) => {
    const { callbackBodySchemas } = await loadResponseSchemas();
    return receiveNow(input, failure ? callbackBodySchemas.failure : callbackBodySchemas.callback);
  };
  const receiveCallback = async (input: InboundRequest, callbackOptions: CallbackOptions<never, never> = {}, failure = false) => {
    const delivery = await receiveCallbackDelivery(input, failure);
    return toCallbackMessage(delivery.body, delivery, callbackOptions, failure, setup.headerPrefix);
  };
  // The handler of a message endpoint, behind the endpoint's idempotency guard when it has one.
  const messageEndpoint = <T>(
    schema: StandardSchemaV1<unknown, T> | undefined,
    handler: MessageHandler<T>,
    endpointOptions: EndpointOptions | undefined,
    name?: string,
  ): Endpoint => {
    const guard = guardOf(setup, endpointOptions?.idempotency);
    const { tracing } = setup;
    if (!guard && !tracing)
      return makeEndpoint((input) => whenReady(receiveNow(input, schema), (message) => handler(message, input.context)));
    const run = (message: ReceivedMessage<T>, input: InboundRequest) =>
      guard ? guard(guardedDelivery(message), () => handler(message, input.context)) : handler(message, input.context);
    return makeEndpoint((input) =>
      whenReady(receiveNow(input, schema), (message) =>
        tracing ? tracing.traceDelivery(tracedDelivery('message', name, message), () => run(message, input)) : run(message, input),
      ),
    );
  };
  const callbackEndpoint = (
    handler: (message: never, context: never) => unknown,
    callbackOptions: CallbackOptions<never, never>,
    failure: boolean,
  ) => {
    const guard = guardOf(setup, callbackOptions.idempotency);
    return makeEndpoint(async (input) => {
      const delivery = await receiveCallbackDelivery(input, failure);
      const message = await toCallbackMessage(delivery.body, delivery, callbackOptions, failure, setup.headerPrefix);
      const run = () => handler(message as never, input.context as never);
      const guarded = guard ? () => guard(guardedDelivery(delivery), run) : run;
      const kind = failure ? 'failureCallback' : 'callback';
      return setup.tracing ? setup.tracing.traceDelivery(tracedDelivery(kind, undefined, delivery, delivery.body), guarded) : guarded();
    });
  };
  const receiver: Receiver = {
    destination: (definition, handler, endpointOptions) => {
      expectDestination(definition);
      checkHandler(handler);
      return messageEndpoint(
        definition.schema as StandardSchemaV1<unknown, BodyOf<typeof definition>>,
        handler,
        endpointOptions,
        definition.name,
      );
    },
    message: (handler, messageOptions) => {
      checkHandler(handler);
      return messageEndpoint(messageOptions?.schema as StandardSchemaV1<unknown, never> | undefined, handler, messageOptions);
    },
    callback: (handler, callbackOptions = {}) => {
      checkHandler(handler);
      return callbackEndpoint(handler as never, callbackOptions as CallbackOptions<never, never>, false);
    },
    failureCallback: (handler, callbackOptions = {}) => {
      checkHandler(handler);
      return callbackEndpoint(handler as never, callbackOptions as CallbackOptions<never, never>, true);
    },
  };
  pipelines.set(receiver, {
    receive,
    receiveCallback: (input, callbackOptions) => receiveCallback(input, callbackOptions as CallbackOptions<never, never>) as never,
    receiveFailureCallback: (input, callbackOptions) =>
      receiveCallback(input, callbackOptions as CallbackOptions<never, never>, true) as never,
    assertConfigured: () => {
      if (setup.verify instanceof ConfigError) throw setup.verify;
    },
    errorResponse: (error, request) => reportAndMap(setup, error, request).response,
    handle: acknowledge.handle,
    fetch: acknowledge.fetch,
    get headerPrefix() {
      return setup.headerPrefix;
    },
    maxBodyBytes: setup.maxBodyBytes,
  });
  return receiver;
}

// The adapter-facing side of each receiver, kept off the object apps see.
const pipelines = new WeakMap<Receiver, ReceiverPipeline>();

/** The pipeline of a receiver made by `createReceiver` (an adapter's `createMailroom` makes one too). */
export function pipelineOf(receiver: Receiver): ReceiverPipeline {
  const pipeline = receiver !== null && typeof receiver === 'object' ? pipelines.get(receiver) : undefined;
  if (!pipeline) throw new ValidationError('receiver', 'expected a receiver made by createReceiver() from @mailroom/core');
  return pipeline;
}

export function checkHandler(handler: unknown): void {
  if (typeof handler !== 'function') throw new ValidationError('handler', `expected a function, got ${typeof handler}`);
}
