import { isDestinationDefinition, validateWithSchema, type DestinationDefinition, type PayloadOf } from '../contract';
import { expectObject, ValidationError } from '../errors';
import { buildEnqueueHeaders, type EnqueueOptions } from '../headers';
import type { RequestSpec } from '../http';
import { enqueueResultSchema, urlGroupEnqueueResultSchema, type EnqueueResult } from '../schemas';
import { isPlainEnqueueResult } from '../schemas/messaging';
import { parseResponseFast } from '../schemas/primitives';
import type { MessagingContext } from './client';

/** A destination given as a URL (`https://...`). The service answers one result. */
export type UrlDestination = `http://${string}` | `https://${string}`;
/** An internal API of the service such as `api/llm`. The service answers one result. */
export type ApiDestination = `api/${string}`;

export type ClassifiedDestination = { kind: 'url'; href: string } | { kind: 'api'; name: string } | { kind: 'urlGroup'; name: string };

const GROUP_NAME = /^[A-Za-z0-9._-]+$/;
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
    return { kind: 'url', href: url.href };
  }
  if (destination.startsWith('api/')) {
    if (!API_NAME.test(destination)) throw new ValidationError('destination', `invalid API name ${JSON.stringify(destination)}`);
    return { kind: 'api', name: destination };
  }
  if (GROUP_NAME.test(destination)) return { kind: 'urlGroup', name: destination };
  throw new ValidationError(
    'destination',
    `${JSON.stringify(destination)} is neither a URL group name (letters, digits, "-", "_", ".") nor a URL: a URL must start with http:// or https://`,
  );
}

/** Queue and URL-group names share the service's naming rule. */
export function checkName(path: string, value: unknown): string {
  if (typeof value !== 'string' || !GROUP_NAME.test(value)) {
    throw new ValidationError(path, `expected letters, digits, "-", "_" or "." only, got ${JSON.stringify(value)}`);
  }
  return value;
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

/** Sends one enqueue request and parses the answer shape the destination kind implies. */
export async function enqueue<const D extends string>(context: MessagingContext, request: EnqueueRequest<D>): Promise<EnqueueResponse<D>> {
  checkRequest(request);
  return sendEnqueue(context, request, request.body ?? '', enqueueOptionsOf(request)) as Promise<EnqueueResponse<D>>;
}

/** Like {@link enqueue}, with the body serialised as JSON and `Content-Type: application/json`. */
export async function enqueueJSON<const D extends string, T>(
  context: MessagingContext,
  request: Omit<EnqueueRequest<D>, 'body' | 'contentType'> & { body: T },
): Promise<EnqueueResponse<D>> {
  checkRequest(request);
  let text: string | undefined;
  try {
    text = JSON.stringify(request.body);
  } catch (cause) {
    throw new ValidationError('body', `cannot be serialised to JSON: ${(cause as Error).message}`, { cause });
  }
  if (text === undefined) throw new ValidationError('body', 'cannot be serialised to JSON (undefined, a function or a symbol)');
  const options = enqueueOptionsOf(request);
  options.contentType = 'application/json';
  return sendEnqueue(context, request, text, options) as Promise<EnqueueResponse<D>>;
}

function checkRequest(request: unknown): void {
  expectObject(request, 'request', '{ queue, destination, body, ...options }');
}

/** Validates where to, what and how, then sends. */
function sendEnqueue(
  context: MessagingContext,
  request: { queue: string; destination: string; signal?: AbortSignal },
  body: unknown,
  options: EnqueueOptions,
): Promise<EnqueueResult | EnqueueResult[]> {
  const queue = checkName('queue', request.queue);
  const destination = classifyDestination(request.destination);
  if (destination.kind === 'api' && destination.name === 'api/llm' && options.callback === undefined) {
    throw new ValidationError('callback', 'the api/llm destination needs a callback URL to deliver its answer to');
  }
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new ValidationError('body', 'expected a string or a Uint8Array; use enqueueJSON for objects');
  }
  const spec: RequestSpec = {
    method: 'POST',
    path: destination.kind === 'url' ? ['v2', 'enqueue', queue] : ['v2', 'enqueue', queue, ...destinationSegments(destination)],
    headers: buildEnqueueHeaders(options, { headerPrefix: context.headerPrefix }),
    body,
    // Resending an enqueue whose answer was lost would deliver the message twice, unless the
    // service can recognise the copy by its deduplication id.
    retrySafe: options.deduplicationId !== undefined,
  };
  // The service reads a URL destination verbatim from the rest of the path, query included.
  if (destination.kind === 'url') spec.rawTail = destination.href;
  if (request.signal) spec.signal = request.signal;
  return destination.kind === 'urlGroup'
    ? context.transport.requestJson(spec, parseUrlGroupResult)
    : context.transport.requestJson(spec, parseEnqueueResult);
}

function destinationSegments(destination: Readonly<ClassifiedDestination>): string[] {
  if (destination.kind === 'api') return destination.name.split('/');
  return destination.kind === 'urlGroup' ? [destination.name] : [];
}

function parseEnqueueResult(value: unknown, url: string): EnqueueResult {
  return parseResponseFast(enqueueResultSchema, isPlainEnqueueResult, value, url);
}

function parseUrlGroupResult(value: unknown, url: string): EnqueueResult[] {
  return parseResponseFast(urlGroupEnqueueResultSchema, isPlainUrlGroupResult, value, url);
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

/** Settings of a typed send: every enqueue option, plus where the definition's path is served. */
export interface SendOptions extends Omit<EnqueueOptions, 'contentType'> {
  /** Queue to enqueue on. Default: the definition's name, so each destination keeps its own order. */
  queue?: string;
  /** Full URL of the receiving endpoint; default `appUrl` (or `MAILROOM_APP_URL`) joined with `def.path`. */
  url?: string;
  signal?: AbortSignal;
}

/**
 * Enqueues a payload for a typed destination. The payload is checked against the definition's schema
 * before anything is sent, so a message the receiver would reject with 489 never leaves the process.
 *
 * @example await client.send(orderPlaced, { orderId: 'o1', total: 12 }, { retries: 3 })
 */
export async function send<D extends DestinationDefinition>(
  context: MessagingContext,
  definition: D,
  payload: PayloadOf<D>,
  options: SendOptions = {},
): Promise<EnqueueResult> {
  if (!isDestinationDefinition(definition)) {
    throw new ValidationError('definition', 'expected a destination made with defineDestination({ name, schema })');
  }
  await validateWithSchema(definition.schema, payload, 'payload');
  const { queue, url, ...rest } = options;
  const destination = url ?? endpointUrl(context, definition);
  return (await enqueueJSON(context, { ...rest, queue: queue ?? definition.name, destination, body: payload })) as EnqueueResult;
}

function endpointUrl(context: MessagingContext, definition: DestinationDefinition): string {
  if (context.appUrl === undefined) {
    throw new ValidationError(
      'url',
      `cannot tell where "${definition.name}" is served: pass { url } to send(), or set appUrl on the client (or MAILROOM_APP_URL) to the public base URL of the receiving app`,
    );
  }
  return context.appUrl.replace(/\/+$/, '') + definition.path;
}
