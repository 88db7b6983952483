/**
 * Origin and path (with query) of an absolute URL the client built itself from a normalised base, as
 * undici's `dispatch` takes them, without parsing a `URL` per request.
 *
 * @example splitUrl('http://127.0.0.1:8288/v2/enqueue/q/https://a.test/x?y=1')
 * // { origin: 'http://127.0.0.1:8288', path: '/v2/enqueue/q/https://a.test/x?y=1' }
 */
export function splitUrl(url: string): { origin: string; path: string } {
  const start = url.indexOf('//') + 2;
  let end = start;
  while (end < url.length && url[end] !== '/' && url[end] !== '?') end++;
  const rest = url.slice(end);
  return { origin: url.slice(0, end), path: rest === '' ? '/' : rest.startsWith('?') ? `/${rest}` : rest };
}
