import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ENV_VARIABLES, processEnvironment } from '../config/env-variables';
import { resolveHeaderPrefix } from '../config/header-prefix';
import { optionalSetting } from '../config/resolve-setting';
import { checkBaseUrl } from '../config/resolve-url';
import type { BodyOf, DestinationDefinition } from '../contract/define-destination';
import { isDestinationDefinition } from '../contract/define-destination';
import { validateWithSchema } from '../contract/validate-with-schema';
import { BodyTooLargeError } from '../errors/body-errors';
import { ConfigError } from '../errors/config-error';
import { MethodNotAllowedError } from '../errors/receive-errors';
import { ValidationError } from '../errors/validation-error';
import { callbackBodySchema, failureCallbackBodySchema } from '../schemas';
import { createVerifier, type Verifier } from '../signature';
import { toCallbackMessage, type CallbackMessage, type CallbackOptions, type FailureCallbackMessage, type SchemaOutput } from './callback-message';
import { readDeliveryHeaders } from './delivery-headers';
import { errorResponse, textResponse } from './error-response';
import type { InboundRequest, OutboundResponse } from './inbound-request';
import { decodeText, parseBody } from './parse-body';
import { readWebRequest, toWebResponse } from './read-web-request';
import type { ReceivedMessage } from './received-message';
import { DEFAULT_MAX_BODY_BYTES, type ReceiveStage, type ReceiverOptions } from './receiver-options';

/** The pipeline's answer. `error` is set when a handler threw unexpectedly, for adapters that forward it (Express `next`). */
export type HandledResponse = OutboundResponse & { error?: unknown };

/** One receiving endpoint, usable from any framework through plain data or Web `Request`/`Response`. */
export interface Endpoint {
  handle(input: InboundRequest): Promise<HandledResponse>;
  fetch(request: Request): Promise<Response>;
  /** The body limit, so Node adapters can enforce it while streaming. */
  readonly maxBodyBytes: number;
  /** Maps a failure that happened before `handle` (reading the body) to the same answers `handle` gives. */
  errorResponse(error: unknown, request: InboundRequest): OutboundResponse;
}

export type MessageHandler<T> = (message: ReceivedMessage<T>) => unknown;

export interface Receiver {
  /** A typed destination endpoint: the handler gets the definition's schema output as `message.body`. */
  destination<D extends DestinationDefinition>(definition: D, handler: MessageHandler<BodyOf<D>>): Endpoint;
  /** An endpoint with an optional schema of its own (no definition). */
  message<S extends StandardSchemaV1 | undefined = undefined>(handler: MessageHandler<SchemaOutput<S>>, options?: { schema?: S }): Endpoint;
  /** A callback endpoint, called by the service after every delivery attempt. */
  callback<S extends StandardSchemaV1 | DestinationDefinition | undefined = undefined, R extends StandardSchemaV1 | undefined = undefined>(
    handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): Endpoint;
  /** A failure-callback endpoint, called once delivery failed for good. */
  failureCallback<S extends StandardSchemaV1 | DestinationDefinition | undefined = undefined, R extends StandardSchemaV1 | undefined = undefined>(
    handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): Endpoint;
  /**
   * Every check up to the handler (method, size, signature, URL, parsing, schema) without calling one:
   * resolves with the message or rejects with the typed error. For guards (NestJS) and custom glue.
   */
  receive<T = unknown>(input: InboundRequest, schema?: StandardSchemaV1<unknown, T>): Promise<ReceivedMessage<T>>;
  /** Like `receive`, for a callback: the decoded {@link CallbackMessage}. */
  receiveCallback<S extends StandardSchemaV1 | DestinationDefinition | undefined = undefined, R extends StandardSchemaV1 | undefined = undefined>(
    input: InboundRequest,
    options?: CallbackOptions<S, R>,
  ): Promise<CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>>;
  /** Like `receive`, for a failure callback: the decoded {@link FailureCallbackMessage}. */
  receiveFailureCallback<S extends StandardSchemaV1 | DestinationDefinition | undefined = undefined, R extends StandardSchemaV1 | undefined = undefined>(
    input: InboundRequest,
    options?: CallbackOptions<S, R>,
  ): Promise<FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>>;
  /**
   * Throws the `ConfigError` every request would get when no signing key is configured, so frameworks
   * with a start-up phase (NestJS) can fail there instead of at the first delivery.
   */
  assertConfigured(): void;
  /** Maps any error of `receive` or a handler to the response the service should get. */
  errorResponse(error: unknown, request: InboundRequest): OutboundResponse;
  /** The pipeline for a verified-and-acknowledged endpoint without a handler. */
  handle(input: InboundRequest): Promise<HandledResponse>;
  fetch(request: Request): Promise<Response>;
  readonly headerPrefix: string;
  readonly maxBodyBytes: number;
}

interface Context {
  options: ReceiverOptions;
  headerPrefix: string;
  maxBodyBytes: number;
  methods: readonly string[];
  publicUrl: string | undefined;
  verifier: Verifier | ConfigError | undefined;
}

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
  const context = resolveContext(options);
  const receive = <T>(input: InboundRequest, schema?: StandardSchemaV1<unknown, T>) => receiveMessage<T>(context, input, schema);
  const makeEndpoint = (consume: (input: InboundRequest) => Promise<unknown>): Endpoint => {
    const handle = (input: InboundRequest) => runPipeline(context, input, consume);
    return {
      handle,
      fetch: (request) => fetchThrough(context, request, handle),
      maxBodyBytes: context.maxBodyBytes,
      errorResponse: (error, request) => reportAndMap(context, error, request).response,
    };
  };
  const acknowledge = makeEndpoint(async (input) => void (await receive(input)));
  const receiveCallback = async (input: InboundRequest, callbackOptions: CallbackOptions<never, never> = {}, failure = false) => {
    const delivery = await receive(input, failure ? failureCallbackBodySchema : callbackBodySchema);
    return toCallbackMessage(delivery.body, delivery, callbackOptions, failure);
  };
  return {
    destination: (definition, handler) => {
      if (!isDestinationDefinition(definition)) {
        throw new ValidationError('definition', 'expected a destination made with defineDestination({ name, schema })');
      }
      checkHandler(handler);
      return makeEndpoint(async (input) => handler(await receive(input, definition.schema as StandardSchemaV1<unknown, BodyOf<typeof definition>>)));
    },
    message: (handler, messageOptions) => {
      checkHandler(handler);
      const schema = messageOptions?.schema as StandardSchemaV1<unknown, never> | undefined;
      return makeEndpoint(async (input) => handler(await receive(input, schema)));
    },
    callback: (handler, callbackOptions = {}) => {
      checkHandler(handler);
      return makeEndpoint(async (input) => handler((await receiveCallback(input, callbackOptions as CallbackOptions<never, never>)) as never));
    },
    failureCallback: (handler, callbackOptions = {}) => {
      checkHandler(handler);
      return makeEndpoint(async (input) => handler((await receiveCallback(input, callbackOptions as CallbackOptions<never, never>, true)) as never));
    },
    receive,
    receiveCallback: (input, callbackOptions) => receiveCallback(input, callbackOptions as CallbackOptions<never, never>) as never,
    receiveFailureCallback: (input, callbackOptions) => receiveCallback(input, callbackOptions as CallbackOptions<never, never>, true) as never,
    assertConfigured: () => {
      if (context.verifier instanceof ConfigError) throw context.verifier;
    },
    errorResponse: (error, request) => reportAndMap(context, error, request).response,
    handle: acknowledge.handle,
    fetch: acknowledge.fetch,
    headerPrefix: context.headerPrefix,
    maxBodyBytes: context.maxBodyBytes,
  };
}

function resolveContext(options: ReceiverOptions): Context {
  if (options === null || typeof options !== 'object') throw new ValidationError('options', 'expected an object of receiver options');
  const env = options.env ?? processEnvironment();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Infinity switches the limit off, as in readInbound; anything else must be a whole byte count.
  if (maxBodyBytes !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0)) {
    throw new ValidationError('maxBodyBytes', `expected a whole number of bytes >= 0 (or Infinity), got ${JSON.stringify(options.maxBodyBytes)}`);
  }
  const methods = (options.methods ?? ['POST']).map((method) => {
    if (typeof method !== 'string' || !/^[A-Z]+$/.test(method)) throw new ValidationError('methods', `expected upper-case HTTP methods, got ${JSON.stringify(method)}`);
    return method;
  });
  const publicUrl = options.publicUrl === undefined ? undefined : checkBaseUrl('publicUrl', options.publicUrl).replace(/\/+$/, '');
  return {
    options,
    headerPrefix: resolveHeaderPrefix(options.headerPrefix, env),
    maxBodyBytes,
    methods,
    publicUrl,
    verifier: options.verify === false ? undefined : makeVerifier(options, env),
  };
}

function makeVerifier(options: ReceiverOptions, env: ReceiverOptions['env'] & object): Verifier | ConfigError {
  const currentSigningKey = optionalSetting('currentSigningKey', options.currentSigningKey, env);
  const nextSigningKey = optionalSetting('nextSigningKey', options.nextSigningKey, env);
  if (currentSigningKey === undefined && nextSigningKey === undefined) {
    // Not thrown here: an app must still boot (and answer 500 loudly) rather than crash at import.
    return new ConfigError(
      'currentSigningKey',
      ENV_VARIABLES.currentSigningKey,
      `No signing key is configured, so no message can be verified. Set ${ENV_VARIABLES.currentSigningKey} and ${ENV_VARIABLES.nextSigningKey} (or pass currentSigningKey / nextSigningKey).`,
    );
  }
  return createVerifier({
    currentSigningKey,
    nextSigningKey,
    issuer: options.issuer,
    clockToleranceSeconds: options.clockToleranceSeconds,
    now: options.now,
    implementation: options.implementation,
  });
}

async function receiveMessage<T>(context: Context, input: InboundRequest, schema?: StandardSchemaV1<unknown, T>): Promise<ReceivedMessage<T>> {
  const method = (input.method ?? '').toUpperCase();
  if (!context.methods.includes(method)) throw new MethodNotAllowedError(method, context.methods);
  if (input.rawBody.byteLength > context.maxBodyBytes) throw new BodyTooLargeError(context.maxBodyBytes);
  const delivery = readDeliveryHeaders(input.headers, context.headerPrefix);
  let signature: ReceivedMessage<T>['signature'];
  if (context.verifier instanceof ConfigError) throw context.verifier;
  if (context.verifier) {
    const url = context.publicUrl === undefined ? undefined : context.publicUrl + pathAndQuery(input.url);
    signature = await context.verifier.verify({ signature: delivery.signature, rawBody: input.rawBody, ...(url !== undefined ? { url } : {}) });
  }
  const parsed = parseBody(input.rawBody, delivery.contentType);
  const body = schema ? await validateWithSchema(schema, parsed, 'body') : (parsed as T);
  const rawBody = input.rawBody;
  return {
    body,
    rawBody,
    text: () => decodeText(rawBody),
    messageId: delivery.messageId,
    retried: delivery.retried,
    topicName: delivery.topicName,
    scheduleId: delivery.scheduleId,
    callerIp: delivery.callerIp,
    workflowRunId: delivery.workflowRunId,
    workflowUrl: delivery.workflowUrl,
    forwardedHeaders: delivery.forwarded,
    headers: delivery.all,
    method,
    url: input.url,
    contentType: delivery.contentType,
    signature,
  };
}

async function runPipeline(context: Context, input: InboundRequest, consume: (input: InboundRequest) => Promise<unknown>): Promise<HandledResponse> {
  try {
    return resultResponse(await consume(input));
  } catch (error) {
    const { response, stage } = reportAndMap(context, error, input);
    return stage === 'handler' && response.status === 500 ? { ...response, error } : response;
  }
}

async function fetchThrough(context: Context, request: Request, handle: (input: InboundRequest) => Promise<HandledResponse>): Promise<Response> {
  let input: InboundRequest;
  try {
    input = await readWebRequest(request, context.maxBodyBytes);
  } catch (error) {
    const fallback: InboundRequest = { method: request.method, url: request.url, headers: request.headers, rawBody: new Uint8Array(0) };
    return toWebResponse(reportAndMap(context, error, fallback).response);
  }
  const { error: _error, ...out } = await handle(input);
  return toWebResponse(out);
}

function reportAndMap(context: Context, error: unknown, request: InboundRequest): { response: OutboundResponse; stage: ReceiveStage } {
  const mapped = errorResponse(error, context.headerPrefix);
  try {
    (context.options.onError ?? defaultOnError)(error, { stage: mapped.stage, request });
  } catch {
    // A failing logger must not turn a clear answer into a crash.
  }
  return mapped;
}

function defaultOnError(error: unknown, { stage }: { stage: ReceiveStage }): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (stage === 'handler') console.error(`[mailroom] handler failed: ${message}`);
  else console.warn(`[mailroom] request refused at ${stage}: ${message}`);
}

/** Nothing means 200; a string is sent as text; anything else as JSON. */
function resultResponse(result: unknown): OutboundResponse {
  if (result === undefined || result === null) return { status: 200, headers: {}, body: '' };
  if (typeof result === 'string') return textResponse(200, result);
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result) };
}

function pathAndQuery(url: string | undefined): string {
  if (!url) return '/';
  if (/^https?:\/\//i.test(url)) {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  }
  return url.startsWith('/') ? url : `/${url}`;
}

function checkHandler(handler: unknown): void {
  if (typeof handler !== 'function') throw new ValidationError('handler', `expected a function, got ${typeof handler}`);
}
