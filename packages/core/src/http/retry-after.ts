/**
 * Milliseconds to wait according to a `Retry-After` header, either delta-seconds or an HTTP date;
 * `undefined` when absent or unreadable. A date in the past gives 0.
 *
 * @example retryAfterMs(new Headers({ 'Retry-After': '2' }), Date.now()) // 2000
 */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const raw = headers.get('Retry-After')?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  // An HTTP date always names a month; without this, V8's lenient Date.parse reads '-1' as a year.
  if (!/[a-z]/i.test(raw)) return undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
