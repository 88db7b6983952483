import type { IncomingMessage } from 'node:http';
import { ValidationError } from '../errors/validation-error';

import { DEFAULT_MAX_BODY_BYTES } from '../receive/receiver-options';

// One default for every path into the pipeline (Node streams and Web requests alike).
export { DEFAULT_MAX_BODY_BYTES };

/** The limit to enforce, validated so a typo (a string, a negative number) cannot disable it silently. */
export function resolveBodyLimit(maxBodyBytes: number | undefined): number {
  if (maxBodyBytes === undefined) return DEFAULT_MAX_BODY_BYTES;
  const valid =
    typeof maxBodyBytes === 'number' &&
    maxBodyBytes >= 0 &&
    (Number.isSafeInteger(maxBodyBytes) || maxBodyBytes === Number.POSITIVE_INFINITY);
  if (!valid) {
    throw new ValidationError(
      'maxBodyBytes',
      `must be a whole number of bytes >= 0 (or Infinity for no limit), got ${describe(maxBodyBytes)}`,
    );
  }
  return maxBodyBytes;
}

/**
 * The declared body length, or `undefined` when the request is chunked or the header is unusable.
 * Node's parser has already rejected malformed and conflicting values, so a number here is the
 * exact length the body will have.
 */
export function declaredContentLength(req: IncomingMessage): number | undefined {
  if (req.headers['transfer-encoding'] !== undefined) return undefined;
  const raw = req.headers['content-length'];
  if (raw === undefined) return undefined;
  const length = Number(raw);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
