// Which URL a delivery's token must name: with `publicUrl`, that URL plus the request's path and
// query; without it, a token whose path is the request's (the host a proxy saw cannot be trusted).

import { SignatureError } from '../errors';
import { parseToken } from '../signature/token';

/**
 * `publicUrl` + the request's path and query. The last answer is kept: an endpoint is called on the
 * same URL over and over, and an absolute one (every Web Request's) costs a URL parse each time.
 *
 * Frameworks that rebuild a request's URL re-encode its query (React Router's request rewrite, a
 * Lambda REST or ALB event's parameters): `?a=b%20c&flag` arrives as `?a=b+c&flag=`. The query is
 * then matched by meaning: when the token's `sub` has this URL's origin and path and the same
 * parameters in the same order, decoded, `sub` is the URL the token must be signed for.
 */
export function signedUrlOf(publicUrl: string): (requestUrl: string | undefined, token: string | undefined) => string {
  let lastRequestUrl: string | undefined;
  let lastSignedUrl = publicUrl + pathAndQuery(undefined);
  return (requestUrl, token) => {
    if (requestUrl !== lastRequestUrl) {
      lastSignedUrl = publicUrl + pathAndQuery(requestUrl);
      lastRequestUrl = requestUrl;
    }
    if (token === undefined || !lastSignedUrl.includes('?')) return lastSignedUrl;
    const sub = subjectOf(token);
    return sub !== undefined && sub !== lastSignedUrl && sameQueryMeaning(sub, lastSignedUrl) ? sub : lastSignedUrl;
  };
}

/** The token's `sub`, unverified (the verifier then checks the token against it), or undefined. */
function subjectOf(token: string): string | undefined {
  try {
    const { sub } = parseToken(token).payload;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** The same text up to the query, and the same decoded parameters in the same order. */
function sameQueryMeaning(a: string, b: string): boolean {
  const [baseA, queryA] = splitQuery(a);
  const [baseB, queryB] = splitQuery(b);
  if (baseA !== baseB) return false;
  const entriesA = [...new URLSearchParams(queryA)];
  const entriesB = [...new URLSearchParams(queryB)];
  return (
    entriesA.length === entriesB.length && entriesA.every(([name, value], i) => entriesB[i]?.[0] === name && entriesB[i]?.[1] === value)
  );
}

function splitQuery(url: string): [string, string] {
  const hash = url.indexOf('#');
  const end = hash < 0 ? url.length : hash;
  const mark = url.indexOf('?');
  return mark < 0 || mark > end ? [url.slice(0, end), ''] : [url.slice(0, mark), url.slice(mark + 1, end)];
}

/**
 * Binds a token to the endpoint it was signed for: the path of its `sub` must be the path the request
 * arrived at, so a token captured at one endpoint of the app cannot be replayed at another. Both
 * sides go through the URL parser, so they are normalised alike. Paths are kept per string, as
 * `signedUrlOf` does: one endpoint sees the same URLs over and over.
 */
export function signedPathChecker(): (signedUrl: string, requestUrl: string | undefined) => void {
  let lastSigned = '';
  let lastSignedPath = '';
  let lastRequest: string | undefined;
  let lastRequestPath = '/';
  return (signedUrl, requestUrl) => {
    if (signedUrl !== lastSigned) {
      lastSignedPath = pathOf(signedUrl);
      lastSigned = signedUrl;
    }
    if (requestUrl !== lastRequest) {
      lastRequestPath = pathOf(pathAndQuery(requestUrl));
      lastRequest = requestUrl;
    }
    if (lastSignedPath !== lastRequestPath) {
      throw new SignatureError(
        'subject',
        `the token was signed for the path ${JSON.stringify(lastSignedPath)}, but this request arrived at ${JSON.stringify(lastRequestPath)}. ` +
          'If a proxy or rewrite changes the path, set publicUrl (or MAILROOM_PUBLIC_URL) to the public base URL of this app; ' +
          'to accept a token signed for any path, set allowAnyPath: true (not recommended).',
      );
    }
  };
}

/** The normalised path of an absolute URL or of a path; `undefined`-safe for a malformed `sub`. */
function pathOf(url: string): string {
  try {
    return new URL(url, 'http://path.invalid').pathname;
  } catch {
    return url;
  }
}

function pathAndQuery(url: string | undefined): string {
  if (!url) return '/';
  if (/^https?:\/\//i.test(url)) {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  }
  return url.startsWith('/') ? url : `/${url}`;
}
