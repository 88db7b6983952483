/**
 * Headers as frameworks hand them to us: a Web `Headers`, Node's `IncomingHttpHeaders` (lower-case
 * keys, arrays for repeated headers) or a plain record in any letter case.
 */
export type HeaderLookup = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Every header as `[lower-case name, value]`, repeated values joined the way HTTP folds them. */
export function headerEntries(headers: HeaderLookup): Array<[string, string]> {
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    const out: Array<[string, string]> = [];
    (headers as Headers).forEach((value, name) => {
      out.push([name, value]);
    });
    return out;
  }
  // Object.keys and an index loop rather than Object.entries: no intermediate pair per header, which
  // made this a measurable part of every delivery. Own keys only, like Object.entries.
  const record = headers as Record<string, unknown>;
  const names = Object.keys(record);
  const out: Array<[string, string]> = [];
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = record[name];
    if (value === undefined || value === null) continue;
    out.push([name.toLowerCase(), typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : String(value)]);
  }
  return out;
}

/** One header by name, case-insensitively; `undefined` when absent. */
export function getHeader(headers: HeaderLookup, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | readonly string[] | undefined>;
  const direct = record[name] ?? record[name.toLowerCase()];
  if (direct !== undefined) return Array.isArray(direct) ? direct.join(', ') : (direct as string);
  const lower = name.toLowerCase();
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() === lower) {
      const value = record[key];
      if (value !== undefined) return Array.isArray(value) ? value.join(', ') : (value as string);
    }
  }
  return undefined;
}
