import { ValidationError } from '../errors/validation-error';
import { buildEnqueueHeaders } from '../headers/build-enqueue-headers';
import type { EnqueueOptions } from '../headers/enqueue-options';
import type { RequestSpec } from '../http';
import { enqueueResultSchema, urlGroupEnqueueResultSchema, type EnqueueResult } from '../schemas';
import { isPlainEnqueueResult } from '../schemas/enqueue-result';
import { parseResponseFast } from '../schemas/parse-response';
import { checkName, classifyDestination, type ApiDestination, type ClassifiedDestination, type UrlDestination } from './destination';
import type { MessagingContext } from './messaging-context';

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
  if (request === null || typeof request !== 'object') {
    throw new ValidationError('request', 'expected { queue, destination, body, ...options }');
  }
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
