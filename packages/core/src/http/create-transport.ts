import type { ApiError } from '../errors/api-error';
import { NetworkError } from '../errors/network-error';
import { ResponseValidationError } from '../errors/response-validation-error';
import { sleepUnlessAborted } from './abortable-sleep';
import { mapErrorResponse } from './map-error-response';
import { prepareRequest, type PreparedRequest } from './prepare-request';
import { resolveTransportOptions, type ResolvedTransportOptions } from './resolve-transport-options';
import { isRetryableError, retryDelay } from './retry-decision';
import { retryAfterMs } from './retry-after';
import type { HttpTransportResponse } from './http-transport';
import type { ParseResponse, RequestSpec, Transport, TransportOptions, TransportResponse } from './transport-types';

/**
 * The one HTTP transport under the messaging client (Bearer) and the management client (Basic):
 * auth header, JSON bodies, a timeout per attempt, `{"error"}` answers turned into typed errors,
 * and retries with backoff for network errors, 429 and 5xx on requests marked `retrySafe`.
 * Options are validated here, so a bad setting throws `ValidationError` before any request.
 *
 * @example
 * const transport = createTransport({ baseUrl: 'http://127.0.0.1:8288', auth: { kind: 'bearer', token } });
 * const topics = await transport.requestJson({ method: 'GET', path: ['v2', 'topics'] }, parseTopics);
 * await transport.request({ method: 'POST', path: ['v2', 'topics', name, 'endpoints'], json: { endpoints } });
 */
export function createTransport(options: TransportOptions): Transport {
  const resolved = resolveTransportOptions(options);
  // async so a bad spec rejects the promise instead of throwing synchronously.
  return {
    async request(spec: RequestSpec): Promise<TransportResponse> {
      const prepared = prepareRequest(spec, resolved);
      return successResponse(await send(prepared, resolved), prepared.url);
    },
    async requestJson<T>(spec: RequestSpec, parse: ParseResponse<T>): Promise<T> {
      const prepared = prepareRequest(spec, resolved);
      const answer = await send(prepared, resolved);
      return parse(parseJsonBody(answer.text, prepared.url), prepared.url);
    },
  };
}

async function send(request: PreparedRequest, options: ResolvedTransportOptions): Promise<HttpTransportResponse> {
  const retries = request.retrySafe ? options.retry.retries : 0;
  for (let retry = 0; ; retry++) {
    const failure = await attempt(request, options);
    if ('response' in failure) return failure.response;
    const { error, retryAfter } = failure;
    if (retry >= retries || !isRetryableError(error)) throw error;
    const delay = retryDelay(error, retryAfter, retry, options.retry, options.random, options.now());
    if (delay === undefined) throw error;
    await sleepUnlessAborted(options.sleep, delay, request.signal);
  }
}

type AttemptOutcome = { response: HttpTransportResponse } | { error: ApiError | NetworkError; retryAfter: number | undefined };

async function attempt(request: PreparedRequest, options: ResolvedTransportOptions): Promise<AttemptOutcome> {
  let result: HttpTransportResponse;
  try {
    request.signal?.throwIfAborted();
    result = await options.http.send(request);
  } catch (error) {
    // The caller's abort is a decision, not a failure: their reason goes back as it is, never retried.
    if (request.signal?.aborted) throw request.signal.reason;
    if (error instanceof NetworkError) return { error, retryAfter: undefined };
    return { error: new NetworkError({ method: request.method, url: request.url, timedOut: false, cause: error }), retryAfter: undefined };
  }
  if (result.status >= 200 && result.status < 300) {
    return { response: result };
  }
  const now = options.now();
  return {
    error: mapErrorResponse(result, { method: request.method, url: request.url, now }),
    retryAfter: retryAfterMs(result.headers, now),
  };
}

/** The answer with the URL it came from; `headers` stays a getter, so a lazy transport never builds them for nothing. */
function successResponse(result: HttpTransportResponse, url: string): TransportResponse {
  return {
    status: result.status,
    text: result.text,
    url,
    get headers() {
      return result.headers;
    },
  };
}

/** An empty body is `undefined` (several endpoints answer 200 with nothing); anything else must be JSON. */
function parseJsonBody(text: string, url: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ResponseValidationError({ field: '', url, reason: 'is not JSON' });
  }
}
