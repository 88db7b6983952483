/**
 * An answer other than success, thrown from anywhere in a handler and written once as the service
 * writes errors: `{"error": "<message>"}` with the status of service-facts (400, 401, 403, 404, 412).
 */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
  }
}

/** 400 with a message. */
export const badRequest = (message: string): HttpError => new HttpError(400, message);
/** 404 with a message. */
export const notFound = (message: string): HttpError => new HttpError(404, message);
/** 412: a plan limit is exceeded. */
export const planLimit = (message: string): HttpError => new HttpError(412, message);
