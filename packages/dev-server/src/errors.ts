import { RESOURCE_NAME, RESOURCE_NAME_RULE, unsignableUrl } from '@mailroom/core/internal-protocol';

// The service's refusals, and the checks every layer shares that refuse a request.

/**
 * An answer other than success, as the service gives it: `{"error": "<message>"}` with the status
 * of service-facts (400, 401, 403, 404, 412, 413, 429). Thrown from any layer that decides a request
 * cannot be done (reading its settings, accepting it, a route); the HTTP layer writes it.
 */
export class ServiceError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ServiceError';
    this.status = status;
    this.headers = headers;
  }
}

/**
 * A step published for a cancelled run, in the service's own words (its doubled "a" too): the Workflow
 * SDK reads any 400 as "the run was cancelled", and its 0.2 suites compare the text, which a batch
 * answers as `[{"error": ...}]`.
 */
export const CANCELLED_RUN_REFUSAL = 'failed to publish to url: can not append to a a cancelled workflow';

/** 400 with a message. */
export const badRequest = (message: string): ServiceError => new ServiceError(400, message);
/** 404 with a message. */
export const notFound = (message: string): ServiceError => new ServiceError(404, message);
/** 412: a plan limit is exceeded. */
export const planLimit = (message: string): ServiceError => new ServiceError(412, message);

/**
 * The journal could not be written, so nothing of the request was accepted: 507 when the disk is full,
 * else 503, both with a `Retry-After` (the server resumes writing by itself once it can).
 */
export function storageRefusal(cause: unknown): ServiceError {
  // The system's code (ENOSPC, EIO, ...) of the first error in the chain that has one.
  let code: string | undefined;
  for (let error = cause; error instanceof Error && code === undefined; error = error.cause) {
    const own = (error as { code?: unknown }).code;
    if (typeof own === 'string' && /^E[A-Z0-9]+$/.test(own)) code = own;
  }
  const retry = { 'Retry-After': '5' };
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new ServiceError(
      507,
      `the server's disk is full (${code}): nothing of this request was accepted. Free space on the disk of its data dir; it takes writes again by itself within seconds`,
      retry,
    );
  }
  const reason = code ?? 'an I/O error';
  return new ServiceError(
    503,
    `the server could not write its journal (${reason}): nothing of this request was accepted. It tries again by itself; retry shortly`,
    retry,
  );
}

/** Callback and workflow URLs follow the destination's rule: http:// or https://, and parseable. */
export function checkUrl(url: string, what: string): void {
  if (!/^https?:\/\//i.test(url)) throw badRequest(`invalid ${what} url: endpoint has invalid scheme, add http:// or https://`);
  try {
    new URL(url);
  } catch {
    throw badRequest(`invalid ${what} url: ${JSON.stringify(url)} is not a valid URL`);
  }
  const unsignable = unsignableUrl(url);
  if (unsignable) throw badRequest(`invalid ${what} url: it ${unsignable}`);
}

/** A name the service puts in a URL path (queue, schedule id, flow-control key, URL group), or 400 naming it. */
export function resourceName(what: string, value: unknown): string {
  if (typeof value !== 'string' || !RESOURCE_NAME.test(value)) {
    throw badRequest(`invalid ${what} ${JSON.stringify(value ?? '')}: use ${RESOURCE_NAME_RULE}`);
  }
  return value;
}
