import type { StandardSchemaV1 } from '@standard-schema/spec';
import { processEnvironment, resolveHeaderPrefix, optionalSetting, checkBaseUrl } from '../config';
import { devServerUrl } from '../dev-mode';
import { type BodyOf, type DestinationDefinition, expectDestination } from '../contract';
import {
  expectObject,
  BodyTooLargeError,
  ConfigError,
  MethodNotAllowedError,
  RawBodyUnavailableError,
  SignatureError,
  ValidationError,
} from '../errors';
import { callbackBodySchema, failureCallbackBodySchema } from '../schemas';
import { guardedDelivery, idempotencyGuard, type IdempotencyGuard, type IdempotencyOption } from '../idempotency/guard';
import { checkTracing, type MessageTracing } from '../tracing/hooks';
import { signedPathChecker, signedUrlOf } from './signed-url';
import type { VerifiedSignature } from '../signature';
import { defaultVerifier, regionalVerifiers, type VerifyDelivery } from './keys';
import {
  toCallbackMessage,
  type CallbackMessage,
  type CallbackOptions,
  type FailureCallbackMessage,
  type SchemaOutput,
  receivedMessage,
  tracedDelivery,
  parseBody,
  type ReceivedMessage,
  validateBody,
} from './received-messages';
import { deliveryHeaderReader, type DeliveryHeaderReader, type DeliveryHeaders } from './delivery-headers';
import { defaultOnError, errorResponse, readWebRequest, resultResponse, toWebResponse } from './answers';
import { isThenable, toPromise, whenReady, type MaybePromise } from '../maybe-promise';
import { type InboundRequest, type OutboundResponse, resolveBodyLimit, type ReceiveStage, type ReceiverOptions } from './receiver-options';

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

/** A receiver's settings resolved once: the verifiers, the header reader, the URL a token must name. */
interface ReceiverSetup {
  options: ReceiverOptions;
  headerPrefix: string;
  maxBodyBytes: number;
  methods: readonly string[];
  /** The URL a token must be signed for, given the request's; `undefined` without `publicUrl`. */
  signedUrl: (requestUrl: string | undefined) => string | undefined;
  /** Without `publicUrl`: throws unless the token's `sub` has the request's path. */
  checkSignedPath: ((signedUrl: string, requestUrl: string | undefined) => void) | undefined;
  readDelivery: DeliveryHeaderReader;
  /** Verifies a delivery's token; a ConfigError when no key is configured, `undefined` with `verify: false`. */
  verify: VerifyDelivery | ConfigError | undefined;
  /** The verifier of a region's own keys (`EU_CENTRAL_1`), when it has any. */
  regional: (region: string) => VerifyDelivery | undefined;
  /** Whether a refused signature's answer names the failed check: in development, tests and dev mode only. */
  nameRefusals: boolean;
  /** Consumer spans around handlers (the `tracing` option). */
  tracing: MessageTracing | undefined;
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
  const receiveCallback = async (input: InboundRequest, callbackOptions: CallbackOptions<never, never> = {}, failure = false) => {
    const delivery = await receiveNow(input, failure ? failureCallbackBodySchema : callbackBodySchema);
    return toCallbackMessage(delivery.body, delivery, callbackOptions, failure, setup.headerPrefix);
  };
  // The handler of a message endpoint, behind the endpoint's idempotency guard when it has one.
  const messageEndpoint = <T>(
    schema: StandardSchemaV1<unknown, T> | undefined,
    handler: MessageHandler<T>,
    endpointOptions: EndpointOptions | undefined,
    name?: string,
  ): Endpoint => {
    const guard = guardOf(setup, endpointOptions);
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
    const guard = guardOf(setup, callbackOptions);
    return makeEndpoint(async (input) => {
      const delivery = await receiveNow(input, failure ? failureCallbackBodySchema : callbackBodySchema);
      const message = await toCallbackMessage(delivery.body, delivery, callbackOptions, failure, setup.headerPrefix);
      const run = () => handler(message as never, input.context as never);
      const guarded = guard ? () => guard(guardedDelivery(delivery), run) : run;
      const kind = failure ? 'failureCallback' : 'callback';
      return setup.tracing ? setup.tracing.traceDelivery(tracedDelivery(kind, undefined, delivery, delivery.body), guarded) : guarded();
    });
  };
  return {
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
  };
}

/**
 * The receiver's settings. Those passed in code are checked now; what comes from the environment
 * (keys, header prefix, issuer, public URL) is read at the first request, so a receiver made when its
 * module loads works under a test service that sets the environment later, and under `next build`,
 * which loads modules without it. An `env` option is read now: it is code's choice, not the process's.
 */
function resolveSetup(options: ReceiverOptions): ReceiverSetup {
  expectObject(options, 'options', 'an object of receiver options');
  const maxBodyBytes = resolveBodyLimit(options.maxBodyBytes);
  const methods = (options.methods ?? ['POST']).map((method) => {
    if (typeof method !== 'string' || !/^[A-Z]+$/.test(method))
      throw new ValidationError('methods', `expected upper-case HTTP methods, got ${JSON.stringify(method)}`);
    return method;
  });
  if (options.allowAnyPath !== undefined && typeof options.allowAnyPath !== 'boolean') {
    throw new ValidationError('allowAnyPath', `expected true or false, got ${JSON.stringify(options.allowAnyPath)}`);
  }
  const tracing = checkTracing(options.tracing, 'options.tracing');
  let fromEnv = settingsFromEnvironment(options, options.env ?? {});
  let read = options.env !== undefined;
  const now = (): EnvironmentSettings => {
    if (!read) {
      fromEnv = settingsFromEnvironment(options, processEnvironment());
      read = true;
    }
    return fromEnv;
  };
  return {
    options,
    maxBodyBytes,
    methods,
    tracing,
    get headerPrefix() {
      return now().headerPrefix;
    },
    get signedUrl() {
      return now().signedUrl;
    },
    get checkSignedPath() {
      return now().checkSignedPath;
    },
    get readDelivery() {
      return now().readDelivery;
    },
    get verify() {
      return now().verify;
    },
    get regional() {
      return now().regional;
    },
    get nameRefusals() {
      return now().nameRefusals;
    },
  };
}

type EnvironmentSettings = Omit<ReceiverSetup, 'options' | 'maxBodyBytes' | 'methods' | 'tracing'>;

function settingsFromEnvironment(options: ReceiverOptions, env: ReceiverOptions['env'] & object): EnvironmentSettings {
  const publicUrlSetting = optionalSetting('publicUrl', options.publicUrl, env);
  const publicUrl = publicUrlSetting === undefined ? undefined : checkBaseUrl('publicUrl', publicUrlSetting).replace(/\/+$/, '');
  const headerPrefix = resolveHeaderPrefix(options.headerPrefix, env);
  // The issuer like every setting: the option, then MAILROOM_ISSUER, then the verifier's default.
  const issuer = optionalSetting('issuer', options.issuer, env);
  const keyOptions = issuer === undefined ? options : { ...options, issuer };
  return {
    headerPrefix,
    signedUrl: publicUrl === undefined ? () => undefined : signedUrlOf(publicUrl),
    checkSignedPath: publicUrl === undefined && options.allowAnyPath !== true ? signedPathChecker() : undefined,
    readDelivery: deliveryHeaderReader(headerPrefix),
    verify: options.verify === false ? undefined : defaultVerifier(keyOptions, env),
    regional: regionalVerifiers(keyOptions, env),
    // Only where a person develops: NODE_ENV development or test, or dev mode. Elsewhere a prober learns nothing.
    nameRefusals: env.NODE_ENV === 'development' || env.NODE_ENV === 'test' || devServerUrl(options.dev, env) !== undefined,
  };
}

/**
 * Every check up to the handler. Throws (rather than rejects) when a check fails before anything had
 * to wait; callers turn that into a rejection where they promise one.
 */
function receiveMessage<T>(
  setup: ReceiverSetup,
  input: InboundRequest,
  schema?: StandardSchemaV1<unknown, T>,
): MaybePromise<ReceivedMessage<T>> {
  const method = (input.method ?? '').toUpperCase();
  if (!setup.methods.includes(method)) throw new MethodNotAllowedError(method, setup.methods);
  if (input.rawBody.byteLength > setup.maxBodyBytes) throw new BodyTooLargeError(setup.maxBodyBytes);
  const delivery = setup.readDelivery(input.headers);
  const { region } = delivery.fields;
  const regional = region === undefined || !setup.verify ? undefined : setup.regional(region);
  const verify = regional ?? setup.verify;
  if (verify instanceof ConfigError) throw verify;
  const finish = (signature: VerifiedSignature | undefined) => parseAndValidate(input, method, delivery, schema, signature);
  if (!verify) return finish(undefined);
  const url = setup.signedUrl(input.url);
  const verified = verify({ signature: delivery.signature, rawBody: input.rawBody, url });
  const { checkSignedPath } = setup;
  if (!checkSignedPath) return whenReady(verified, finish);
  return whenReady(verified, (signature) => {
    checkSignedPath(signature.claims.sub, input.url);
    return finish(signature);
  });
}

function parseAndValidate<T>(
  input: InboundRequest,
  method: string,
  delivery: DeliveryHeaders,
  schema: StandardSchemaV1<unknown, T> | undefined,
  signature: VerifiedSignature | undefined,
): MaybePromise<ReceivedMessage<T>> {
  const parsed = parseBody(input.rawBody, delivery.fields.contentType);
  if (!schema) return receivedMessage(parsed as T, input.rawBody, method, input.url, delivery, signature);
  return whenReady(validateBody(schema, parsed), (body) => receivedMessage(body, input.rawBody, method, input.url, delivery, signature));
}

/** Never throws: every failure becomes its answer (a crashed handler's keeps the error for the adapter). */
function runPipeline(
  setup: ReceiverSetup,
  input: InboundRequest,
  consume: (input: InboundRequest) => unknown,
): MaybePromise<OutboundResponse> {
  const failed = (error: unknown): OutboundResponse => {
    const { response, stage } = reportAndMap(setup, error, input);
    return stage === 'handler' && response.status === 500 ? { ...response, error } : response;
  };
  let result: unknown;
  try {
    result = consume(input);
  } catch (error) {
    return failed(error);
  }
  // A promise only when there is something to wait for: a sync handler's delivery needs no microtask.
  if (!isThenable(result)) return resultResponse(result);
  return Promise.resolve(result).then(resultResponse, failed);
}

async function fetchThrough(
  setup: ReceiverSetup,
  request: Request,
  handle: (input: InboundRequest) => Promise<OutboundResponse>,
  handlerContext: unknown,
): Promise<Response> {
  let input: InboundRequest;
  try {
    input = await readWebRequest(request, setup.maxBodyBytes, handlerContext);
  } catch (error) {
    const fallback: InboundRequest = { method: request.method, url: request.url, headers: request.headers, rawBody: new Uint8Array(0) };
    return toWebResponse(reportAndMap(setup, error, fallback).response);
  }
  // toWebResponse reads only status, headers and body, so a handler's `error` is left behind as it is.
  return toWebResponse(await handle(input));
}

function reportAndMap(setup: ReceiverSetup, error: unknown, request: InboundRequest): { response: OutboundResponse; stage: ReceiveStage } {
  const cause = unsignedWithoutBody(setup, error, request) ? unsignedRefusal(setup) : error;
  const mapped = errorResponse(cause, setup.headerPrefix, setup.nameRefusals);
  report(setup, cause, { stage: mapped.stage, request });
  return mapped;
}

/**
 * A parser consumed the body of a request that carries no signature: it is refused as unsigned
 * (401), as it would be with its body, rather than with the fix-it 500 meant for real deliveries
 * (an app whose parser skips deliveries still parses everything else).
 */
function unsignedWithoutBody(setup: ReceiverSetup, error: unknown, request: InboundRequest): boolean {
  return error instanceof RawBodyUnavailableError && setup.verify !== undefined && !setup.readDelivery(request.headers).signature;
}

/** What an unsigned request gets: 401, or the missing keys' 500 when none are configured (fail closed). */
function unsignedRefusal(setup: ReceiverSetup): Error {
  return setup.verify instanceof ConfigError ? setup.verify : new SignatureError('missing', 'the request carries no signature header');
}

// Start-up warnings already printed by the default onError in this process: an app with twenty
// routes (or `next build`, which loads each one) says a key is missing once, not twenty times.
const warnedAtStart = new Set<string>();

function reportMissingKeys(setup: ReceiverSetup, error: ConfigError): void {
  if (!setup.options.onError) {
    if (warnedAtStart.has(error.message)) return;
    warnedAtStart.add(error.message);
  }
  report(setup, error, { stage: 'config' });
}

function report(setup: ReceiverSetup, error: unknown, where: { stage: ReceiveStage; request?: InboundRequest }): void {
  try {
    (setup.options.onError ?? defaultOnError)(error, where);
  } catch {
    // A failing logger must not turn a clear answer into a crash.
  }
}

/** The endpoint's idempotency guard: its own option, else the receiver's default; what the store refuses beside an answer goes to onError. */
function guardOf(setup: ReceiverSetup, endpointOptions: EndpointOptions | undefined): IdempotencyGuard | undefined {
  const storeFailed = (error: unknown) => report(setup, error, { stage: 'store' });
  if (endpointOptions?.idempotency !== undefined) return idempotencyGuard(endpointOptions.idempotency, 'idempotency', storeFailed);
  return idempotencyGuard(setup.options.idempotency, 'options.idempotency', storeFailed);
}

export function checkHandler(handler: unknown): void {
  if (typeof handler !== 'function') throw new ValidationError('handler', `expected a function, got ${typeof handler}`);
}
