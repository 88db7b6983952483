import type { HttpTransport } from '../http';

/**
 * `{ transport }` when one was given, else nothing, so an explicit `undefined` never reaches the
 * transport's validation (where it would read as "no transport" anyway, but named as given).
 */
export function transportOption(transport: HttpTransport | undefined): { transport?: HttpTransport } {
  return transport === undefined ? {} : { transport };
}
