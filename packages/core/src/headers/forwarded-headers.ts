import { resolveHeaderPrefix } from '../config/header-prefix';
import { headerNames } from '../protocol/header-names';
import { headerEntries, type HeaderLookup } from './header-lookup';
import type { HeaderPrefixOptions } from './enqueue-options';

/**
 * The destination's view of the forwarded headers: every `<Prefix>-Forward-X: v` becomes `X: v`
 * (names lower-cased, as HTTP treats them), and nothing else passes: not the service's own headers,
 * and not `<Prefix>-Callback-Forward-*`, which are meant for the callback.
 *
 * @example
 * forwardedHeaders({ 'Service-Forward-X-Tenant': 'acme', 'Service-Retries': '3' })
 * // { 'x-tenant': 'acme' }
 */
export function forwardedHeaders(headers: HeaderLookup, settings: HeaderPrefixOptions = {}): Record<string, string> {
  const marker = headerNames(resolveHeaderPrefix(settings.headerPrefix)).delivery.forwardPrefix.toLowerCase();
  const out: Array<[string, string]> = [];
  for (const [name, value] of headerEntries(headers)) {
    if (name.startsWith(marker) && name.length > marker.length) out.push([name.slice(marker.length), value]);
  }
  // fromEntries defines own properties, so a header named `__proto__` is kept like any other instead
  // of being swallowed by the prototype setter.
  return Object.fromEntries(out);
}
