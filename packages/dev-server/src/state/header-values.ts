/** Header name -> values, the way the service writes headers (Go's `http.Header`). */
export type HeaderValues = Record<string, string[]>;

/**
 * A header name the way the service prints it (Go's canonical form): `content-type` becomes
 * `Content-Type`, `service-retries` `Service-Retries`.
 *
 * @example canonicalHeaderName('x-request-id') // 'X-Request-Id'
 */
export function canonicalHeaderName(name: string): string {
  let canonical = canonicalNames.get(name);
  if (canonical === undefined) {
    canonical = canonicalize(name);
    // Bounded: header names come from clients and destinations, and a few dozen repeat forever.
    if (canonicalNames.size >= MAX_CACHED_NAMES) canonicalNames.clear();
    canonicalNames.set(name, canonical);
  }
  return canonical;
}

const MAX_CACHED_NAMES = 512;
const canonicalNames = new Map<string, string>();

function canonicalize(name: string): string {
  return name
    .toLowerCase()
    .split('-')
    .map((part) => (part === '' ? part : part[0]!.toUpperCase() + part.slice(1)))
    .join('-');
}

/**
 * Node's `rawHeaders` (`[name, value, name, value, ...]`) as name -> values, canonical names, repeated
 * headers kept as separate values; only those whose lower-case name `keep` accepts.
 */
export function headerValuesFromRaw(rawHeaders: readonly string[], keep: (lowerCaseName: string) => boolean): HeaderValues {
  // Built in place: this runs for every enqueue.
  const out: HeaderValues = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    if (keep(name.toLowerCase())) appendHeaderValue(out, name, rawHeaders[index + 1]!);
  }
  return out;
}

/**
 * Adds one value under the header's canonical name. A header named `__proto__` is defined as an own
 * property, so it stays a header instead of reaching the prototype.
 */
export function appendHeaderValue(out: HeaderValues, name: string, value: string): void {
  const key = canonicalHeaderName(name);
  if (Object.hasOwn(out, key)) out[key]!.push(value);
  else if (key === '__proto__') Object.defineProperty(out, key, { value: [value], enumerable: true, writable: true, configurable: true });
  else out[key] = [value];
}

/**
 * The headers of a request as Node hands them over: a request, a stored schedule or a batch item
 * all read the same way. `headers` has lower-case names; `rawHeaders` is `[name, value, ...]`.
 */
export interface HeaderSource {
  headers: Readonly<Record<string, string | string[] | undefined>>;
  rawHeaders: readonly string[];
}

/** A header source from `[name, value, ...]` pairs (a stored schedule, a batch item). */
export function headerSource(rawHeaders: string[]): HeaderSource {
  const headers: Record<string, string> = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    const value = rawHeaders[index + 1]!;
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { headers, rawHeaders };
}

/**
 * The headers a sender chose for a message, as its destination receives them and as the service
 * shows them (a message's `header`, a callback's `sourceHeader`): its Content-Type and its forwarded
 * headers under their own names (`<P>-Forward-X-Token: v` is `X-Token: v`), never the `<P>-*` settings.
 */
export function deliveredHeaderValues(contentType: string | undefined, forwardHeaders: Readonly<Record<string, string>>): HeaderValues {
  const out: HeaderValues = {};
  if (contentType !== undefined) appendHeaderValue(out, 'Content-Type', contentType);
  for (const name of Object.keys(forwardHeaders)) appendHeaderValue(out, name, forwardHeaders[name]!);
  return out;
}
