/**
 * Milliseconds to wait according to a `Retry-After` value, either delta-seconds or an HTTP date;
 * `undefined` when absent or unreadable. A date in the past gives 0. Shared by the client (a 429 or
 * 503 from the service) and the dev server (a destination asking to be retried later).
 *
 * @example parseRetryAfter('2', Date.now()) // 2000
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const raw = value?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  // An HTTP date always names a month; without this, V8's lenient Date.parse reads '-1' as a year.
  if (!/[a-z]/i.test(raw)) return undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** {@link parseRetryAfter} of a response's `Retry-After` header. */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  return parseRetryAfter(headers.get('Retry-After'), now);
}
