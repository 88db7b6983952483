// Which URL a delivery's token must name: with `publicUrl`, that URL plus the request's path and
// query; without it, a token whose path is the request's (the host a proxy saw cannot be trusted).

import { SignatureError } from '../errors';

/**
 * `publicUrl` + the request's path and query. The last answer is kept: an endpoint is called on the
 * same URL over and over, and an absolute one (every Web Request's) costs a URL parse each time.
 */
export function signedUrlOf(publicUrl: string): (requestUrl: string | undefined) => string {
  let lastRequestUrl: string | undefined;
  let lastSignedUrl = publicUrl + pathAndQuery(undefined);
  return (requestUrl) => {
    if (requestUrl !== lastRequestUrl) {
      lastSignedUrl = publicUrl + pathAndQuery(requestUrl);
      lastRequestUrl = requestUrl;
    }
    return lastSignedUrl;
  };
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
