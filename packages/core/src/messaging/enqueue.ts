import { ValidationError } from '../errors/validation-error';
import { buildEnqueueHeaders } from '../headers/build-enqueue-headers';
import type { EnqueueOptions } from '../headers/enqueue-options';
import { enqueueResultSchema, urlGroupEnqueueResultSchema, type EnqueueResult } from '../schemas';
import { parseResponse } from '../schemas/parse-response';
import { checkName, classifyDestination, type ApiDestination, type UrlDestination } from './destination';
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
  if (request === null || typeof request !== 'object') {
    throw new ValidationError('request', 'expected { queue, destination, body, ...options }');
  }
  const queue = checkName('queue', request.queue);
  const destination = classifyDestination(request.destination);
  const options = enqueueOptionsOf(request);
  if (destination.kind === 'api' && destination.name === 'api/llm' && options.callback === undefined) {
    throw new ValidationError('callback', 'the api/llm destination needs a callback URL to deliver its answer to');
  }
  if (request.body !== undefined && typeof request.body !== 'string' && !(request.body instanceof Uint8Array)) {
    throw new ValidationError('body', 'expected a string or a Uint8Array; use enqueueJSON for objects');
  }
  const headers = buildEnqueueHeaders(options, { headerPrefix: context.headerPrefix });
  const spec = {
    method: 'POST' as const,
    path: ['v2', 'enqueue', queue],
    headers,
    body: request.body ?? '',
    // Resending an enqueue whose answer was lost would deliver the message twice, unless the
    // service can recognise the copy by its deduplication id.
    retrySafe: options.deduplicationId !== undefined,
    ...(request.signal ? { signal: request.signal } : {}),
  };
  if (destination.kind === 'url') {
    // The service reads a URL destination verbatim from the rest of the path, query included.
    return context.transport.requestJson({ ...spec, rawTail: destination.href }, (value, url) =>
      parseResponse(enqueueResultSchema, value, url),
    ) as Promise<EnqueueResponse<D>>;
  }
  const name = destination.kind === 'api' ? destination.name.split('/') : [destination.name];
  const path = [...spec.path, ...name];
  const parse =
    destination.kind === 'urlGroup'
      ? (value: unknown, url: string) => parseResponse(urlGroupEnqueueResultSchema, value, url)
      : (value: unknown, url: string) => parseResponse(enqueueResultSchema, value, url);
  return context.transport.requestJson<EnqueueResult | EnqueueResult[]>({ ...spec, path }, parse) as Promise<EnqueueResponse<D>>;
}

/** Like {@link enqueue}, with the body serialised as JSON and `Content-Type: application/json`. */
export async function enqueueJSON<const D extends string, T>(
  context: MessagingContext,
  request: Omit<EnqueueRequest<D>, 'body' | 'contentType'> & { body: T },
): Promise<EnqueueResponse<D>> {
  if (request === null || typeof request !== 'object') {
    throw new ValidationError('request', 'expected { queue, destination, body, ...options }');
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(request.body);
  } catch (cause) {
    throw new ValidationError('body', `cannot be serialised to JSON: ${(cause as Error).message}`, { cause });
  }
  if (text === undefined) throw new ValidationError('body', 'cannot be serialised to JSON (undefined, a function or a symbol)');
  return enqueue(context, { ...request, body: text, contentType: 'application/json' } as EnqueueRequest<D>);
}

function enqueueOptionsOf(request: EnqueueRequest): EnqueueOptions {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request)) {
    if (!REQUEST_KEYS.has(key)) options[key] = value;
  }
  return options as EnqueueOptions;
}
