/**
 * A `Headers` from undici's parsed answer headers (repeated names come as arrays). A value the Fetch
 * standard cannot represent is dropped rather than failing the whole answer.
 *
 * @example toHeaders({ 'retry-after': '2', 'set-cookie': ['a=1', 'b=2'] }).get('retry-after') // '2'
 */
export function toHeaders(parsed: Readonly<Record<string, string | string[] | undefined>>): Headers {
  const headers = new Headers();
  for (const name of Object.keys(parsed)) {
    const value = parsed[name];
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, one);
      } catch {
        // An invalid name or value from the server: skip that one header.
      }
    }
  }
  return headers;
}
