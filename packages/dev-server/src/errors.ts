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

/** 400 with a message. */
export const badRequest = (message: string): ServiceError => new ServiceError(400, message);
/** 404 with a message. */
export const notFound = (message: string): ServiceError => new ServiceError(404, message);
/** 412: a plan limit is exceeded. */
export const planLimit = (message: string): ServiceError => new ServiceError(412, message);
