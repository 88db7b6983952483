import { ValidationError } from '../errors/validation-error';

/** A destination given as a URL (`https://...`). The service answers one result. */
export type UrlDestination = `http://${string}` | `https://${string}`;
/** An internal API of the service such as `api/llm`. The service answers one result. */
export type ApiDestination = `api/${string}`;

export type ClassifiedDestination = { kind: 'url'; href: string } | { kind: 'api'; name: string } | { kind: 'urlGroup'; name: string };

const GROUP_NAME = /^[A-Za-z0-9._-]+$/;
const API_NAME = /^api\/[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

// An app sends to a handful of destinations over and over; parsing the same URL for every enqueue
// was a measurable share of the client's time. Bounded so a stream of unique URLs cannot grow it.
const CACHE_LIMIT = 256;
const classified = new Map<string, Readonly<ClassifiedDestination>>();

/**
 * Tells a URL, an API name and a URL-group name apart, the way the service does, and refuses anything
 * that is none of them (most often a URL without its scheme, which the service would answer with 400).
 */
export function classifyDestination(destination: unknown): Readonly<ClassifiedDestination> {
  if (typeof destination === 'string') {
    const known = classified.get(destination);
    if (known !== undefined) return known;
  }
  const result = Object.freeze(classifyUncached(destination));
  if (classified.size >= CACHE_LIMIT) classified.clear();
  classified.set(destination as string, result);
  return result;
}

function classifyUncached(destination: unknown): ClassifiedDestination {
  if (typeof destination !== 'string' || destination === '') {
    throw new ValidationError(
      'destination',
      `expected a URL, a URL group name or an API name such as "api/llm", got ${JSON.stringify(destination)}`,
    );
  }
  if (/^https?:\/\//i.test(destination)) {
    let url: URL;
    try {
      url = new URL(destination);
    } catch {
      throw new ValidationError('destination', `is not a valid URL: ${JSON.stringify(destination)}`);
    }
    // A fragment never reaches a server; accepting one would promise a delivery we cannot make.
    if (url.hash || destination.includes('#')) {
      throw new ValidationError('destination', `a destination URL cannot carry a #fragment: ${JSON.stringify(destination)}`);
    }
    return { kind: 'url', href: url.href };
  }
  if (destination.startsWith('api/')) {
    if (!API_NAME.test(destination)) throw new ValidationError('destination', `invalid API name ${JSON.stringify(destination)}`);
    return { kind: 'api', name: destination };
  }
  if (GROUP_NAME.test(destination)) return { kind: 'urlGroup', name: destination };
  throw new ValidationError(
    'destination',
    `${JSON.stringify(destination)} is neither a URL group name (letters, digits, "-", "_", ".") nor a URL: a URL must start with http:// or https://`,
  );
}

/** Queue and URL-group names share the service's naming rule. */
export function checkName(path: string, value: unknown): string {
  if (typeof value !== 'string' || !GROUP_NAME.test(value)) {
    throw new ValidationError(path, `expected letters, digits, "-", "_" or "." only, got ${JSON.stringify(value)}`);
  }
  return value;
}
