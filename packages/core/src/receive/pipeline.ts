import type { StandardSchemaV1 } from '@standard-schema/spec';
import { checkBaseUrl, optionalSetting, processEnvironment, resolveHeaderPrefix } from '../config';
import { devServerUrl } from '../dev-mode';
import {
  BodyTooLargeError,
  ConfigError,
  expectObject,
  MethodNotAllowedError,
  RawBodyUnavailableError,
  SignatureError,
  ValidationError,
} from '../errors';
import { idempotencyGuard, type IdempotencyGuard, type IdempotencyOption } from '../idempotency/guard';
import { isThenable, whenReady, type MaybePromise } from '../maybe-promise';
import type { VerifiedSignature } from '../signature';
import { checkTracing, type MessageTracing } from '../tracing/hooks';
import { defaultOnError, errorResponse, readWebRequest, resultResponse, toWebResponse } from './answers';
import { deliveryHeaderReader, type DeliveryHeaderReader, type DeliveryHeaders } from './delivery-headers';
import { defaultVerifier, regionalVerifiers, type VerifyDelivery } from './keys';
import { parseBody, receivedMessage, type ReceivedMessage, validateBody } from './received-messages';
import { type InboundRequest, type OutboundResponse, resolveBodyLimit, type ReceiveStage, type ReceiverOptions } from './receiver-options';
import { signedPathChecker, signedUrlOf } from './signed-url';

// The receiving pipeline's steps over a receiver's resolved settings: method -> body size ->
// signature -> URL -> parse -> schema, then every failure mapped to its answer and reported once.
// `create-receiver` builds endpoints from these; nothing here knows an endpoint or a handler.

/** A receiver's settings resolved once: the verifiers, the header reader, the URL a token must name. */
export interface ReceiverSetup {
  options: ReceiverOptions;
  headerPrefix: string;
  maxBodyBytes: number;
  methods: readonly string[];
  /** The URL a token must be signed for, given the request's; `undefined` without `publicUrl`. */
  signedUrl: (requestUrl: string | undefined, token: string | undefined) => string | undefined;
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

/**
 * The receiver's settings. Those passed in code are checked now; what comes from the environment
 * (keys, header prefix, issuer, public URL) is read at the first request, so a receiver made when its
 * module loads works under a test service that sets the environment later, and under `next build`,
 * which loads modules without it. An `env` option is read now: it is code's choice, not the process's.
 */
export function resolveSetup(options: ReceiverOptions): ReceiverSetup {
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

export function settingsFromEnvironment(options: ReceiverOptions, env: ReceiverOptions['env'] & object): EnvironmentSettings {
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
export function receiveMessage<T>(
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
  const url = setup.signedUrl(input.url, delivery.signature);
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
export function runPipeline(
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

export async function fetchThrough(
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

export function reportAndMap(
  setup: ReceiverSetup,
  error: unknown,
  request: InboundRequest,
): { response: OutboundResponse; stage: ReceiveStage } {
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

export function reportMissingKeys(setup: ReceiverSetup, error: ConfigError): void {
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
export function guardOf(setup: ReceiverSetup, idempotency: IdempotencyOption | false | undefined): IdempotencyGuard | undefined {
  const storeFailed = (error: unknown) => report(setup, error, { stage: 'store' });
  if (idempotency !== undefined) return idempotencyGuard(idempotency, 'idempotency', storeFailed);
  return idempotencyGuard(setup.options.idempotency, 'options.idempotency', storeFailed);
}
