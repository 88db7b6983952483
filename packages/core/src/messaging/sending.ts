import { expectDestination, validateWithSchema, type DestinationDefinition, type PayloadOf } from '../contract';
import { ENV_FILE_HINT, ENV_VARIABLES } from '../config';
import { ConfigError, expectObject, ResponseValidationError, ValidationError } from '../errors';
import { buildEnqueueHeaders, checkName, type EnqueueOptions } from '../enqueue-headers';
import type { RequestSpec } from '../http';
import type { EnqueueResult } from '../schemas';
import { isPlainEnqueueResult, parseAnswer, parseAnswerFast } from '../schemas/lazy';
import { headerNames, RESOURCE_NAME } from '../wire';
import { destinationLabel, forwardTraceContext } from '../tracing/hooks';
import { unsignableUrl } from '../signature/token';
import { toPromise } from '../maybe-promise';
import type { ServiceConnection } from './connection';

/** A destination given as a URL (`https://...`). The service answers one result. */
export type UrlDestination = `http://${string}` | `https://${string}`;
/** An internal API of the service such as `api/llm`. The service answers one result. */
export type ApiDestination = `api/${string}`;

export type ClassifiedDestination = { kind: 'url'; href: string } | { kind: 'api'; name: string } | { kind: 'urlGroup'; name: string };

const API_NAME = /^api\/[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

// An app sends to a handful of destinations over and over; parsing the same URL for every enqueue
// was a measurable share of the client's time. Bounded so a stream of unique URLs cannot grow it.
const CACHE_LIMIT = 256;
const classified = new Map<string, Readonly<ClassifiedDestination>>();

/**
 * Tells a URL, an API name and a URL-group name apart, the way the service does, and refuses anything
 * that is none of them (most often a URL without its scheme, which the service would answer with 400).
 */
export function classifyDestination(destination: unknown): Readonly<ClassifiedDestination> {
  if (typeof destination === 'string') {
    const known = classified.get(destination);
    if (known !== undefined) return known;
  }
  const result = Object.freeze(classifyUncached(destination));
  if (classified.size >= CACHE_LIMIT) classified.clear();
  classified.set(destination as string, result);
  return result;
}

function classifyUncached(destination: unknown): ClassifiedDestination {
  if (typeof destination !== 'string' || destination === '') {
    throw new ValidationError(
      'destination',
      `expected a URL, a URL group name or an API name such as "api/llm", got ${JSON.stringify(destination)}`,
    );
  }
  if (/^https?:\/\//i.test(destination)) {
    let url: URL;
    try {
      url = new URL(destination);
    } catch {
      throw new ValidationError('destination', `is not a valid URL: ${JSON.stringify(destination)}`);
    }
    // A fragment never reaches a server; accepting one would promise a delivery we cannot make.
    if (url.hash || destination.includes('#')) {
      throw new ValidationError('destination', `a destination URL cannot carry a #fragment: ${JSON.stringify(destination)}`);
    }
    const unsignable = unsignableUrl(destination);
    if (unsignable) throw new ValidationError('destination', unsignable);
    return { kind: 'url', href: url.href };
  }
  if (destination.startsWith('api/')) {
    if (!API_NAME.test(destination)) throw new ValidationError('destination', `invalid API name ${JSON.stringify(destination)}`);
    return { kind: 'api', name: destination };
  }
  if (RESOURCE_NAME.test(destination)) return { kind: 'urlGroup', name: destination };
  throw new ValidationError(
    'destination',
    `${JSON.stringify(destination)} is neither a URL group name (letters, digits, "-", "_", ".") nor a URL: a URL must start with http:// or https://`,
  );
}

/** One enqueue (spec endpoint 8): where to, what, and every delivery setting. */
export interface EnqueueRequest<D extends string = string> extends EnqueueOptions {
  /** Queue name; the service creates it on first use. */
  queue: string;
  /** A URL (`https://...`), a URL group name, or an API name such as `api/llm`. */
  destination: D;
  /** The message, passed to the destination byte for byte. */
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

/** The answer for one endpoint. */
export type { EnqueueResult };

/**
 * What an enqueue answers, by destination: one result for a URL or an API name, one result per
 * endpoint for a URL group. When the destination is only known as `string`, both are possible.
 */
export type EnqueueResponse<D extends string> = string extends D
  ? EnqueueResult | EnqueueResult[]
  : D extends UrlDestination | ApiDestination
    ? EnqueueResult
    : EnqueueResult[];

const REQUEST_KEYS = new Set(['queue', 'destination', 'body', 'signal']);
const BATCH_ITEM_KEYS = new Set(['queue', 'destination', 'body']);

/** Sends one enqueue request and parses the answer shape the destination kind implies. */
export function enqueue<const D extends string>(connection: ServiceConnection, request: EnqueueRequest<D>): Promise<EnqueueResponse<D>> {
  // Not async: a mistake still rejects (toPromise), without an async layer's promise on every send.
  return toPromise(() => {
    expectObject(request, 'request', '{ queue, destination, body, ...options }');
    const queue = checkName('queue', request.queue);
    return sendOne(connection, queue, request, request.body ?? '', enqueueOptionsOf(request)) as Promise<EnqueueResponse<D>>;
  });
}

/** Like {@link enqueue}, with the body serialised as JSON and `Content-Type: application/json`. */
export function enqueueJSON<const D extends string, T>(
  connection: ServiceConnection,
  request: Omit<EnqueueRequest<D>, 'body' | 'contentType'> & { body: T },
): Promise<EnqueueResponse<D>> {
  return toPromise(() => {
    expectObject(request, 'request', '{ queue, destination, body, ...options }');
    const queue = checkName('queue', request.queue);
    const options = enqueueOptionsOf(request);
    options.contentType = 'application/json';
    return sendOne(connection, queue, request, jsonText('body', request.body), options) as Promise<EnqueueResponse<D>>;
  });
}

/** One publish (`POST /v2/publish/{destination}`): a message outside any queue. */
export interface PublishRequest<D extends string = string> extends EnqueueOptions {
  /** A URL (`https://...`), a URL group name, or an API name such as `api/llm`. */
  destination: D;
  /** The message, passed to the destination byte for byte. */
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

/** Publishes one message: delivered as soon as it is due, concurrently with others (no queue order). */
export function publish<const D extends string>(connection: ServiceConnection, request: PublishRequest<D>): Promise<EnqueueResponse<D>> {
  return toPromise(() => {
    checkPublish(request);
    return sendOne(connection, undefined, request, request.body ?? '', enqueueOptionsOf(request)) as Promise<EnqueueResponse<D>>;
  });
}

/** Like {@link publish}, with the body serialised as JSON and `Content-Type: application/json`. */
export function publishJSON<const D extends string, T>(
  connection: ServiceConnection,
  request: Omit<PublishRequest<D>, 'body' | 'contentType'> & { body: T },
): Promise<EnqueueResponse<D>> {
  return toPromise(() => {
    checkPublish(request);
    const options = enqueueOptionsOf(request);
    options.contentType = 'application/json';
    return sendOne(connection, undefined, request, jsonText('body', request.body), options) as Promise<EnqueueResponse<D>>;
  });
}

function checkPublish(request: object): void {
  expectObject(request, 'request', '{ destination, body, ...options }');
  if ('queue' in request) throw new ValidationError('queue', 'publish sends without a queue; use enqueue to send on one');
}

function jsonText(path: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new ValidationError(path, `cannot be serialised to JSON: ${(cause as Error).message}`, { cause });
  }
  if (text === undefined) throw new ValidationError(path, 'cannot be serialised to JSON (undefined, a function or a symbol)');
  return text;
}

/** Validates where to, what and how, then sends to a queue (`enqueue`) or without one (`publish`). */
function sendOne(
  connection: ServiceConnection,
  queue: string | undefined,
  request: { destination: string; signal?: AbortSignal },
  body: unknown,
  options: EnqueueOptions,
  typed?: { name: string },
): Promise<EnqueueResult | EnqueueResult[]> {
  const destination = checkDestination(request.destination, options);
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new ValidationError(
      'body',
      `expected a string or a Uint8Array; use ${queue === undefined ? 'publishJSON' : 'enqueueJSON'} for objects`,
    );
  }
  const base = queue === undefined ? ['v2', 'publish'] : ['v2', 'enqueue', queue];
  const spec: RequestSpec = {
    method: 'POST',
    path: destination.kind === 'url' ? base : [...base, ...destinationSegments(destination)],
    headers: buildEnqueueHeaders(options, { headerPrefix: connection.headerPrefix }),
    body,
    // Resending an enqueue whose answer was lost would deliver the message twice, unless the
    // service can recognise the copy by its deduplication id.
    retrySafe: options.deduplicationId !== undefined,
  };
  // The service reads a URL destination verbatim from the rest of the path, query included.
  if (destination.kind === 'url') spec.rawTail = destination.href;
  if (request.signal) spec.signal = request.signal;
  const { requester, tracing } = connection;
  const sendNow = (): Promise<EnqueueResult | EnqueueResult[]> =>
    destination.kind === 'urlGroup' ? requester.requestJson(spec, parseUrlGroupResult) : requester.requestJson(spec, parseEnqueueResult);
  if (!tracing) return sendNow();
  const operation = typed ? 'send' : queue === undefined ? 'publish' : 'enqueue';
  return tracing.traceSend(
    { operation, destination: typed?.name ?? labelOf(destination), messageCount: 1 },
    (context) => {
      forwardTraceContext(spec.headers as Record<string, string>, context, headerNames(connection.headerPrefix), callbacksOf(options));
      return sendNow();
    },
    messageIdsOf,
  );
}

function labelOf(destination: Readonly<ClassifiedDestination>): string {
  return destination.kind === 'url' ? destinationLabel(destination.href) : destination.name;
}

function callbacksOf(options: EnqueueOptions): { callback: boolean; failureCallback: boolean } {
  return { callback: options.callback !== undefined, failureCallback: options.failureCallback !== undefined };
}

function messageIdsOf(result: EnqueueResult | EnqueueResult[] | BatchResult[]): string[] {
  return (Array.isArray(result) ? result.flat() : [result]).map((one) => one.messageId);
}

function checkDestination(destination: unknown, options: EnqueueOptions): Readonly<ClassifiedDestination> {
  const classifiedDestination = classifyDestination(destination);
  if (classifiedDestination.kind === 'api' && classifiedDestination.name === 'api/llm' && options.callback === undefined) {
    throw new ValidationError('callback', 'the api/llm destination needs a callback URL to deliver its answer to');
  }
  return classifiedDestination;
}

function destinationSegments(destination: Readonly<ClassifiedDestination>): string[] {
  if (destination.kind === 'api') return destination.name.split('/');
  return destination.kind === 'urlGroup' ? [destination.name] : [];
}

function parseEnqueueResult(value: unknown, url: string): EnqueueResult | Promise<EnqueueResult> {
  return parseAnswerFast('enqueueResult', isPlainEnqueueResult, value, url);
}

function parseUrlGroupResult(value: unknown, url: string): EnqueueResult[] | Promise<EnqueueResult[]> {
  return parseAnswerFast('urlGroupEnqueueResult', isPlainUrlGroupResult, value, url);
}

function isPlainUrlGroupResult(value: unknown): value is EnqueueResult[] {
  return Array.isArray(value) && value.every(isPlainEnqueueResult);
}

function enqueueOptionsOf(request: object): EnqueueOptions {
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(request)) {
    if (!REQUEST_KEYS.has(key)) options[key] = (request as Record<string, unknown>)[key];
  }
  return options as EnqueueOptions;
}

/** One message of a batch: published, or enqueued when it names a queue. */
export interface BatchItem extends EnqueueOptions {
  /** A URL (`https://...`), a URL group name, or an API name such as `api/llm`. */
  destination: string;
  queue?: string;
  /** Text only: a batch travels as one JSON document. Send binary bodies with `publish`. */
  body?: string;
}

/** One result per batch item, in order: an array for an item sent to a URL group. */
export type BatchResult = EnqueueResult | EnqueueResult[];

/**
 * Sends several messages in one request (`POST /v2/batch`). Every item is checked before anything is
 * sent, and a mistake names the item (`items.2.retries`).
 *
 * @example
 * const [a, b] = await client.batch([
 *   { destination: 'https://app.test/a', body: 'x' },
 *   { destination: 'https://app.test/b', queue: 'emails', body: 'y', retries: 1 },
 * ]);
 */
export async function batch(
  connection: ServiceConnection,
  items: readonly BatchItem[],
  options: { signal?: AbortSignal } = {},
): Promise<BatchResult[]> {
  return sendBatch(connection, items, options, (item) => item.body ?? '');
}

/** Like {@link batch}, with each body serialised as JSON and `Content-Type: application/json`. */
export async function batchJSON<T>(
  connection: ServiceConnection,
  items: ReadonlyArray<Omit<BatchItem, 'body' | 'contentType'> & { body: T }>,
  options: { signal?: AbortSignal } = {},
): Promise<BatchResult[]> {
  return sendBatch(connection, items, options, (item, index) => jsonText(`items.${index}.body`, item.body), 'application/json');
}

async function sendBatch<I extends { destination: string; queue?: string; body?: unknown }>(
  connection: ServiceConnection,
  items: readonly I[],
  options: { signal?: AbortSignal },
  bodyOf: (item: I, index: number) => unknown,
  contentType?: string,
): Promise<BatchResult[]> {
  if (!Array.isArray(items) || items.length === 0) throw new ValidationError('items', 'expected a non-empty array of messages');
  const callbacks: Array<{ callback: boolean; failureCallback: boolean }> = [];
  const labels = new Set<string>();
  const wire = items.map((item, index) => {
    try {
      expectObject(item as unknown, 'item', '{ destination, queue?, body, ...options }');
      const deliveryOptions: Record<string, unknown> = {};
      for (const key of Object.keys(item)) {
        if (!BATCH_ITEM_KEYS.has(key)) deliveryOptions[key] = (item as Record<string, unknown>)[key];
      }
      if (contentType !== undefined) deliveryOptions.contentType = contentType;
      const destination = checkDestination(item.destination, deliveryOptions as EnqueueOptions);
      const body = bodyOf(item, index);
      if (typeof body !== 'string') throw new ValidationError('body', 'a batch body must be a string; send binary bodies with publish');
      const options = deliveryOptions as EnqueueOptions;
      callbacks.push(callbacksOf(options));
      labels.add(labelOf(destination));
      return {
        destination: destination.kind === 'url' ? destination.href : destination.name,
        ...(item.queue !== undefined ? { queue: checkName('queue', item.queue) } : {}),
        headers: buildEnqueueHeaders(options, { headerPrefix: connection.headerPrefix }),
        body,
      };
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      // The same check as for one message, its path placed inside the batch.
      const reason = error.path ? error.message.slice(error.path.length + 2) : error.message;
      throw new ValidationError(error.path ? `items.${index}.${error.path}` : `items.${index}`, reason, { cause: error });
    }
  });
  const sendNow = () => requestBatch(connection, wire, options, items.length);
  const { tracing } = connection;
  if (!tracing) return sendNow();
  // One span for the request; every message of it carries its context.
  const destination = labels.size === 1 ? [...labels][0]! : 'several destinations';
  return tracing.traceSend(
    { operation: 'batch', destination, messageCount: wire.length },
    (context) => {
      const names = headerNames(connection.headerPrefix);
      for (const [index, item] of wire.entries()) forwardTraceContext(item.headers, context, names, callbacks[index]!);
      return sendNow();
    },
    messageIdsOf,
  );
}

function requestBatch(
  connection: ServiceConnection,
  wire: ReadonlyArray<{ headers: Record<string, string> }>,
  options: { signal?: AbortSignal },
  count: number,
): Promise<BatchResult[]> {
  return connection.requester.requestJson(
    {
      method: 'POST',
      path: ['v2', 'batch'],
      json: wire,
      // The service takes a while per item: a large batch gets that much longer than one message.
      extraTimeoutMs: wire.length * BATCH_MS_PER_ITEM,
      ...(options.signal ? { signal: options.signal } : {}),
    },
    (value, url) =>
      parseAnswer('batchResult', value, url).then((results) => {
        if (results.length !== count) {
          throw new ResponseValidationError({ field: '', url, reason: `has ${results.length} results for ${count} messages` });
        }
        return results;
      }),
  );
}

/** Allowed per batch item on top of the client's timeout: 50,000 items get 50 s more. */
const BATCH_MS_PER_ITEM = 1;

/** Settings of a typed send: every enqueue option, plus where the definition's path is served. */
export interface SendOptions extends Omit<EnqueueOptions, 'contentType'> {
  /**
   * Queue to enqueue on, to deliver in order (one at a time, unless the queue's `parallelism` says
   * more): a message still retrying then holds back every later one of its queue. Default: none, the
   * message is published and delivered as soon as it is due, whatever others do.
   */
  queue?: string;
  /** Full URL of the receiving endpoint; default `appUrl` (or `MAILROOM_APP_URL`) joined with `def.path`. */
  url?: string;
  signal?: AbortSignal;
}

/**
 * Sends a payload to a typed destination: published (delivered as soon as due, concurrently), or
 * enqueued on `options.queue` to keep order. The payload is checked against the definition's schema
 * before anything is sent, so a message the receiver would reject with 489 never leaves the process.
 *
 * @example await client.send(orderPlaced, { orderId: 'o1', total: 12 }, { retries: 3 })
 */
export async function send<D extends DestinationDefinition>(
  connection: ServiceConnection,
  definition: D,
  payload: PayloadOf<D>,
  options: SendOptions = {},
): Promise<EnqueueResult> {
  expectDestination(definition);
  await validateWithSchema(definition.schema, payload, 'payload');
  const { queue, url, ...rest } = options;
  const destination = url ?? endpointUrl(connection, definition);
  const request = { ...rest, destination };
  const sendOptions = enqueueOptionsOf(request);
  sendOptions.contentType = 'application/json';
  // Published unless a queue is asked for: an ordered queue per destination would hold every later
  // message behind one that is still retrying (a minute of default backoff).
  const queueName = queue === undefined ? undefined : checkName('queue', queue);
  const sent = sendOne(connection, queueName, request, jsonText('body', payload), sendOptions, definition);
  return (await sent) as EnqueueResult;
}

function endpointUrl(connection: ServiceConnection, definition: DestinationDefinition): string {
  if (connection.appUrl === undefined) {
    // A missing setting, like a missing token: named with its variable and how a .env is loaded.
    throw new ConfigError(
      'appUrl',
      ENV_VARIABLES.appUrl,
      `Cannot tell where "${definition.name}" is served: pass { url } to send(), or set appUrl on the client (or MAILROOM_APP_URL) to the public base URL of the receiving app. ${ENV_FILE_HINT}`,
    );
  }
  return connection.appUrl.replace(/\/+$/, '') + definition.path;
}
